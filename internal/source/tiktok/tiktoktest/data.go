package tiktoktest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
)

// dataset is the demo data of the TikTok advertisers, as the fake serves it.
type dataset struct {
	accounts  []ads.Account
	ids       map[string]bool
	campaigns map[string]ads.Campaign
	adgroups  map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     map[string][]ads.Fact // by advertiser, in date order
	reach     map[reachKey]int64
}

type reachKey struct {
	level, object, grain string
	start                time.Time
}

func (d *dataset) Dataset(string, string) error { return nil }

func (d *dataset) Account(a ads.Account) error {
	if a.Platform == catalog.TikTokAds {
		d.accounts = append(d.accounts, a)
		d.ids[a.AccountID] = true
	}
	return nil
}

func (d *dataset) Campaign(c ads.Campaign) error {
	if d.ids[c.AccountID] {
		d.campaigns[c.CampaignID] = c
	}
	return nil
}

func (d *dataset) AdSet(s ads.AdSet) error {
	if d.ids[s.AccountID] {
		d.adgroups[s.AdSetID] = s
	}
	return nil
}

func (d *dataset) Ad(a ads.Ad) error {
	if d.ids[a.AccountID] {
		d.ads[a.AdID] = a
	}
	return nil
}

func (d *dataset) Fact(f *ads.Fact) error {
	if d.ids[f.AccountID] {
		d.facts[f.AccountID] = append(d.facts[f.AccountID], *f)
	}
	return nil
}

func (d *dataset) Reach(r ads.Reach) error {
	if d.ids[r.AccountID] {
		d.reach[reachKey{r.Level, r.ObjectID, r.Grain, r.PeriodStart}] = r.Reach
	}
	return nil
}

var datasets sync.Map // demo.Config → *loadedData

type loadedData struct {
	once sync.Once
	d    *dataset
	err  error
}

// load generates (once per config) the TikTok advertisers' demo data.
func load(cfg demo.Config) (*dataset, error) {
	v, _ := datasets.LoadOrStore(cfg, &loadedData{})
	l := v.(*loadedData)
	l.once.Do(func() {
		d := &dataset{ids: map[string]bool{}, campaigns: map[string]ads.Campaign{}, adgroups: map[string]ads.AdSet{}, ads: map[string]ads.Ad{},
			facts: map[string][]ads.Fact{}, reach: map[reachKey]int64{}}
		// Accounts come first in the sink's order, so d.ids is known for the rest.
		if l.err = demo.Generate(context.Background(), cfg, d, nil); l.err == nil {
			for _, fs := range d.facts {
				sort.SliceStable(fs, func(i, j int) bool { return fs[i].Date.Before(fs[j].Date) })
			}
			l.d = d
		}
	})
	return l.d, l.err
}

// audience is how the fake writes a demo breakdown as TikTok's AUDIENCE
// dimension: the lead extends it with age and gender (a dimension name and
// the fact's value).
var audience = map[string]func(f *ads.Fact) string{
	"country_code": func(f *ads.Fact) string { return f.Country },
	"platform":     func(f *ads.Fact) string { return platformOf(f.Device, f.AdID) },
	"placement": func(f *ads.Fact) string {
		if f.PublisherPlatform == "" {
			return ""
		}
		return "PLACEMENT_" + strings.ToUpper(f.PublisherPlatform)
	},
}

// platformOf is TikTok's platform of a demo device: phones and tablets split
// between IOS and ANDROID by ad (TikTok has no tablet), desktops are PC.
func platformOf(device, adID string) string {
	switch device {
	case "":
		return ""
	case "desktop":
		return "PC"
	}
	if len(adID) > 0 && adID[len(adID)-1]%2 == 1 {
		return "ANDROID"
	}
	return "IOS"
}

// reportReq is a validated report request.
type reportReq struct {
	advertiser string
	level      string // advertiser, campaign, adgroup, ad
	idDim      string
	audience   []string
	daily      bool
	metrics    []string
	start, end time.Time
	filters    map[string][]string // field_name → IDs
}

type groupKey struct {
	day        time.Time
	id         string
	audience   [3]string
	campaignID string
	adgroupID  string
}

// rows computes a report's rows from the facts: summed per object, audience
// values and day, in a stable order.
func (d *dataset) rows(q *reportReq) []map[string]any {
	facts := d.facts[q.advertiser]
	groups := map[groupKey]*[catalog.NumMeasures]float64{}
	lo := sort.Search(len(facts), func(i int) bool { return !facts[i].Date.Before(q.start) })
	for i := lo; i < len(facts) && !facts[i].Date.After(q.end); i++ {
		f := &facts[i]
		if !q.keep(f) {
			continue
		}
		k := groupKey{}
		if q.daily {
			k.day = f.Date
		}
		switch q.level {
		case "advertiser":
			k.id = f.AccountID
		case "campaign":
			k.id = f.CampaignID
		case "adgroup":
			k.id, k.campaignID = f.AdSetID, f.CampaignID
		case "ad":
			k.id, k.campaignID, k.adgroupID = f.AdID, f.CampaignID, f.AdSetID
		}
		for j, a := range q.audience {
			k.audience[j] = audience[a](f)
		}
		s := groups[k]
		if s == nil {
			s = &[catalog.NumMeasures]float64{}
			groups[k] = s
		}
		for m, v := range f.Measures {
			if v != ads.NotReported {
				s[m] += v
			}
		}
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		if c := a.day.Compare(b.day); c != 0 {
			return c
		}
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return slices.Compare(a.audience[:], b.audience[:])
	})
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, d.row(q, k, groups[k]))
	}
	return out
}

// row is one report row in TikTok's format: every value a string.
func (d *dataset) row(q *reportReq, k groupKey, s *[catalog.NumMeasures]float64) map[string]any {
	dims := map[string]string{q.idDim: k.id}
	if q.daily {
		dims["stat_time_day"] = k.day.Format(time.DateOnly) + " 00:00:00"
	}
	for j, a := range q.audience {
		dims[a] = k.audience[j]
	}
	campaignID := k.campaignID
	if q.level == "campaign" {
		campaignID = k.id
	}
	adgroupID := k.adgroupID
	if q.level == "adgroup" {
		adgroupID = k.id
	}
	metrics := map[string]string{}
	for _, m := range q.metrics {
		switch m {
		case "campaign_id":
			metrics[m] = campaignID
		case "adgroup_id":
			metrics[m] = adgroupID
		case "campaign_name":
			metrics[m] = d.campaigns[campaignID].Name
		case "objective_type":
			metrics[m] = d.campaigns[campaignID].Objective
		case "adgroup_name":
			metrics[m] = d.adgroups[adgroupID].Name
		case "ad_name":
			metrics[m] = d.ads[k.id].Name
		case "reach":
			metrics[m] = d.reachOf(q, k)
		default:
			f := measureOf[m]
			metrics[m] = formatValue(f.Storage.Kind, s[f.Storage.Measure])
		}
	}
	return map[string]any{"dimensions": dims, "metrics": metrics}
}

// reachOf is the stored reach of a row's object and period ("-" where the
// demo stores none: arbitrary ranges, ad groups, ads, audience breakdowns).
func (d *dataset) reachOf(q *reportReq, k groupKey) string {
	if len(q.audience) > 0 || q.level != "advertiser" && q.level != "campaign" {
		return "-"
	}
	level := map[string]string{"advertiser": demo.LevelAccount, "campaign": demo.LevelCampaign}[q.level]
	start, stop := q.start, q.end
	if q.daily {
		start, stop = k.day, k.day
	}
	grain := grainOf(start, stop)
	if v, ok := d.reach[reachKey{level, k.id, grain, start}]; ok && grain != "" {
		return strconv.FormatInt(v, 10)
	}
	return "-"
}

// measureOf are the catalog's metrics by TikTok report metric.
var measureOf = func() map[string]catalog.Field {
	out := map[string]catalog.Field{}
	for _, f := range catalog.Measures() {
		if f.TikTok != nil {
			out[f.TikTok.Field] = f
		}
	}
	return out
}()

// grainOf is the reach grain a period is exactly, or "".
func grainOf(start, stop time.Time) string {
	switch {
	case start.Equal(stop):
		return demo.GrainDaily
	case start.Weekday() == time.Monday && stop.Equal(start.AddDate(0, 0, 6)):
		return demo.GrainWeekly
	case start.Day() == 1 && stop.Equal(start.AddDate(0, 1, -1)):
		return demo.GrainMonthly
	}
	return ""
}

// keep applies the request's ID filters to a fact.
func (q *reportReq) keep(f *ads.Fact) bool {
	for field, ids := range q.filters {
		var v string
		switch field {
		case "campaign_ids":
			v = f.CampaignID
		case "adgroup_ids":
			v = f.AdSetID
		case "ad_ids":
			v = f.AdID
		}
		if !slices.Contains(ids, v) {
			return false
		}
	}
	return true
}

// formatValue writes a measure as TikTok does: money as a decimal string,
// counts as whole numbers.
func formatValue(k catalog.ColumnKind, v float64) string {
	switch k {
	case catalog.Micros:
		m := int64(v)
		return fmt.Sprintf("%d.%02d", m/1e6, m%1e6/1e4) + strings.TrimRight(fmt.Sprintf("%04d", m%1e4), "0")
	case catalog.Integer:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

package tiktoktest

import (
	"cmp"
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
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
)

// dataset is the demo data of the TikTok advertisers, as the fake serves it.
type dataset struct {
	accounts  []ads.Account
	ids       map[string]bool
	campaigns map[string]ads.Campaign
	adgroups  map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     map[string][]ads.Fact // delivery rows by advertiser, in date order
	// sets are the other breakdown sets' rows (ads.Fact.BreakdownKey: age_gender,
	// placement, conversion_action), by set and advertiser, in date order.
	sets  map[string]map[string][]ads.Fact
	reach map[reachKey]int64
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
	if !d.ids[f.AccountID] {
		return nil
	}
	if key := f.BreakdownKey(); key != catalog.Delivery {
		if d.sets[key] == nil {
			d.sets[key] = map[string][]ads.Fact{}
		}
		d.sets[key][f.AccountID] = append(d.sets[key][f.AccountID], *f)
		return nil
	}
	d.facts[f.AccountID] = append(d.facts[f.AccountID], *f)
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
		d := newDataset()
		// Accounts come first in the sink's order, so d.ids is known for the rest.
		if l.err = demo.Generate(context.Background(), cfg, d, nil); l.err == nil {
			d.sortFacts()
			l.d = d
		}
	})
	return l.d, l.err
}

// Accounts are the accounts the data holds.
func (d *dataset) Accounts() []ads.Account { return d.accounts }

// loadAccount builds one advertiser's data at a scale.
func loadAccount(data *fakescale.Data, advertiser string) (*dataset, error) {
	d := newDataset()
	if err := data.Replay(advertiser, d); err != nil {
		return nil, fmt.Errorf("tiktoktest: %w", err)
	}
	d.sortFacts()
	return d, nil
}

func newDataset() *dataset {
	return &dataset{ids: map[string]bool{}, campaigns: map[string]ads.Campaign{}, adgroups: map[string]ads.AdSet{}, ads: map[string]ads.Ad{},
		facts: map[string][]ads.Fact{}, sets: map[string]map[string][]ads.Fact{}, reach: map[reachKey]int64{}}
}

// sortFacts puts every advertiser's rows in date order.
func (d *dataset) sortFacts() {
	byDate := func(fs []ads.Fact) {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Date.Before(fs[j].Date) })
	}
	for _, fs := range d.facts {
		byDate(fs)
	}
	for _, set := range d.sets {
		for _, fs := range set {
			byDate(fs)
		}
	}
}

// audience is how the fake writes a demo breakdown as TikTok's AUDIENCE
// dimension (a dimension name and the fact's value). Age and gender are read
// from the demo's age_gender rows, the others from its delivery rows.
var audience = map[string]func(f *ads.Fact) string{
	"country_code": func(f *ads.Fact) string { return f.Country },
	"platform":     func(f *ads.Fact) string { return platformOf(f.Device, f.AdID) },
	"placement": func(f *ads.Fact) string {
		if f.PublisherPlatform == "" {
			return ""
		}
		return "PLACEMENT_" + strings.ToUpper(f.PublisherPlatform)
	},
	"age":    func(f *ads.Fact) string { return ageOf(f.Age) },
	"gender": func(f *ads.Fact) string { return genderOf(f.Gender) },
}

// ageOf is TikTok's age group of a demo age bracket. TikTok's groups are
// AGE_13_17, AGE_18_24, AGE_25_34, AGE_35_44, AGE_45_54 and AGE_55_100: the
// demo's 55-64 and 65+ are both AGE_55_100, summed as TikTok reports them.
func ageOf(age string) string {
	switch age {
	case "", "unknown":
		return "NONE"
	case "55-64", "65+", "55+":
		return "AGE_55_100"
	}
	return "AGE_" + strings.ReplaceAll(age, "-", "_")
}

// genderOf is TikTok's gender of a demo gender: MALE, FEMALE, NONE.
func genderOf(g string) string {
	switch g {
	case "male", "female":
		return strings.ToUpper(g)
	}
	return "NONE"
}

// eventMetrics are TikTok's per-event report metrics the fake serves, each
// with the demo's conversion_action it counts and whether it is the event's
// count or its value (in the account currency). complete_payment's count and
// value are also the conversion and total_complete_payment_rate of the
// delivery rows (the demo's default action). Events the demo has no rows of
// are 0.
var eventMetrics = map[string]struct {
	action string
	value  bool
}{}

func init() {
	for _, e := range []struct{ action, count, value string }{
		{"complete_payment", "complete_payment", ""},
		{"add_to_cart", "web_event_add_to_cart", "total_web_event_add_to_cart_value"},
		{"form_submit", "form", "total_form_value"},
		{"complete_registration", "user_registration", "total_user_registration_value"},
		{"initiate_checkout", "initiate_checkout", "total_initiate_checkout_value"},
		{"place_an_order", "on_web_order", "total_on_web_order_value"},
		{"add_payment_info", "add_billing", "total_add_billing_value"},
		{"view_content", "product_details_page_browse", "total_product_details_page_browse_value"},
		{"contact", "online_consult", "total_online_consult_value"},
		{"click_button", "button_click", "total_button_click_value"},
		{"search", "page_event_search", "total_page_event_search_value"},
		{"download", "download_start", "total_download_start_value"},
		{"add_to_wishlist", "on_web_add_to_wishlist", "total_on_web_add_to_wishlist_value"},
		{"subscribe", "on_web_subscribe", "total_on_web_subscribe_value"},
	} {
		eventMetrics[e.count] = struct {
			action string
			value  bool
		}{e.action, false}
		if e.value != "" {
			eventMetrics[e.value] = struct {
				action string
				value  bool
			}{e.action, true}
		}
	}
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
	events     bool // some metric is an event's (eventMetrics)
	start, end time.Time
	filters    map[string][]string   // field_name → IDs
	revised    map[time.Time]float64 // the scenario's Revise
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
	if q.demographic() {
		facts = d.sets["age_gender"][q.advertiser]
	}
	groups := map[groupKey]*sums{}
	d.sum(q, facts, groups, false)
	if q.events {
		d.sum(q, d.sets["conversion_action"][q.advertiser], groups, true)
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

// sums are a row's measures and its events' conversions and values.
type sums struct {
	m      [catalog.NumMeasures]float64
	events map[string]*[2]float64 // conversion_action → count, value
}

// demographic reports whether the request reads the demo's age_gender rows.
func (q *reportReq) demographic() bool {
	return slices.Contains(q.audience, "age") || slices.Contains(q.audience, "gender")
}

// sum adds the facts in the request's range to their rows' groups: measures,
// or (events) the conversions and value of each conversion_action.
func (d *dataset) sum(q *reportReq, facts []ads.Fact, groups map[groupKey]*sums, events bool) {
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
			s = &sums{events: map[string]*[2]float64{}}
			groups[k] = s
		}
		if events {
			e := s.events[f.ConversionAction]
			if e == nil {
				e = &[2]float64{}
				s.events[f.ConversionAction] = e
			}
			r := cmp.Or(q.revised[f.Date], 1)
			e[0] += max(f.Measures[catalog.Conversions], 0) * r
			e[1] += max(f.Measures[catalog.ConversionValue], 0) * r
			continue
		}
		for m, v := range f.Measures {
			if v != ads.NotReported {
				s.m[m] += v * cmp.Or(q.revised[f.Date], 1)
			}
		}
	}
}

// row is one report row in TikTok's format: every value a string.
func (d *dataset) row(q *reportReq, k groupKey, s *sums) map[string]any {
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
			if e, ok := eventMetrics[m]; ok {
				v := s.events[e.action]
				if v == nil {
					v = &[2]float64{}
				}
				if e.value {
					metrics[m] = formatValue(catalog.Micros, v[1])
				} else {
					metrics[m] = formatValue(catalog.Integer, v[0])
				}
				continue
			}
			f := measureOf[m]
			metrics[m] = formatValue(f.Storage.Kind, s.m[f.Storage.Measure])
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

// reportMetrics are the integrated report's metrics the fake serves, and
// the catalog metric whose data each holds. The fake keeps its own list,
// apart from the connector's, so that a metric the connector misspells fails
// the tests (docs/tiktok.md, "Field mapping").
var reportMetrics = map[string]string{
	"spend":                       "spend",
	"impressions":                 "impressions",
	"clicks":                      "clicks",
	"conversion":                  "conversions",
	"total_complete_payment_rate": "conversion_value",
	"video_play_actions":          "video_views",
	"video_views_p100":            "video_views_p100",
}

// measureOf are the catalog's metrics by TikTok report metric.
var measureOf = func() map[string]catalog.Field {
	out := map[string]catalog.Field{}
	for field, name := range reportMetrics {
		out[field] = catalog.MustLookup(name)
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

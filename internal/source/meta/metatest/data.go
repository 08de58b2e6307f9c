package metatest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
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

// dataset is the demo data of the Meta accounts, as the fake serves it.
type dataset struct {
	accounts  []ads.Account
	campaigns map[string]ads.Campaign
	adsets    map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     map[string][]ads.Fact // by account, in date order
	reach     map[reachKey]int64
}

type reachKey struct {
	level, object, grain string
	start                time.Time
}

func (d *dataset) Dataset(string, string) error { return nil }

func (d *dataset) Account(a ads.Account) error {
	if a.Platform == catalog.MetaAds {
		d.accounts = append(d.accounts, a)
	}
	return nil
}

func (d *dataset) meta(accountID string) bool { return strings.HasPrefix(accountID, "act_") }

func (d *dataset) Campaign(c ads.Campaign) error {
	if d.meta(c.AccountID) {
		d.campaigns[c.CampaignID] = c
	}
	return nil
}

func (d *dataset) AdSet(s ads.AdSet) error {
	if d.meta(s.AccountID) {
		d.adsets[s.AdSetID] = s
	}
	return nil
}

func (d *dataset) Ad(a ads.Ad) error {
	if d.meta(a.AccountID) {
		d.ads[a.AdID] = a
	}
	return nil
}

func (d *dataset) Fact(f *ads.Fact) error {
	if d.meta(f.AccountID) {
		d.facts[f.AccountID] = append(d.facts[f.AccountID], *f)
	}
	return nil
}

func (d *dataset) Reach(r ads.Reach) error {
	if d.meta(r.AccountID) {
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

// load generates (once per config) the Meta accounts' demo data.
func load(cfg demo.Config) (*dataset, error) {
	v, _ := datasets.LoadOrStore(cfg, &loadedData{})
	l := v.(*loadedData)
	l.once.Do(func() {
		d := newDataset()
		if l.err = demo.Generate(context.Background(), cfg, d, nil); l.err == nil {
			d.sortFacts()
			l.d = d
		}
	})
	return l.d, l.err
}

// Accounts are the accounts the data holds.
func (d *dataset) Accounts() []ads.Account { return d.accounts }

// loadAccount builds one account's data at a scale.
func loadAccount(data *fakescale.Data, account string) (*dataset, error) {
	d := newDataset()
	if err := data.Replay(account, d); err != nil {
		return nil, fmt.Errorf("metatest: %w", err)
	}
	d.sortFacts()
	return d, nil
}

func newDataset() *dataset {
	return &dataset{campaigns: map[string]ads.Campaign{}, adsets: map[string]ads.AdSet{}, ads: map[string]ads.Ad{},
		facts: map[string][]ads.Fact{}, reach: map[reachKey]int64{}}
}

// sortFacts puts every account's facts in date order.
func (d *dataset) sortFacts() {
	for _, fs := range d.facts {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Date.Before(fs[j].Date) })
	}
}

// insightsReq is a validated Insights request.
type insightsReq struct {
	account    string
	level      string
	fields     map[string]bool
	spans      []span // one per time range (time_ranges), or the time_range
	increment  string // "1"…"90", "monthly", "all_days"
	breakdowns []string
	filters    []filter
	windows    []string // action_attribution_windows
}

type span struct{ since, until time.Time }

type filter struct {
	field, operator string
	values          []string
}

// groupKey is one output row: a period and the level's objects and breakdowns.
type groupKey struct {
	start, stop               time.Time
	campaign, adset, ad       string
	country, device, platform string
	age, gender, position     string
}

// sums are a group's measures, by catalog.Measure (what Meta reports), and
// its conversion events: the account's default action (the measures'
// conversions) and, at account and campaign level without breakdowns, the
// other actions of the demo's conversion_action rows.
type sums struct {
	m      [catalog.NumMeasures]float64
	events map[string]*eventSums
}

// eventSums are one conversion event's count and value under the default
// attribution, and per attribution window asked.
type eventSums struct {
	v   [2]float64
	win map[string]*[2]float64
}

func (s *sums) event(name string) *eventSums {
	if s.events == nil {
		s.events = map[string]*eventSums{}
	}
	e := s.events[name]
	if e == nil {
		e = &eventSums{win: map[string]*[2]float64{}}
		s.events[name] = e
	}
	return e
}

// add counts a fact's conversions and value for an event, under the default
// attribution and split into the windows asked.
func (e *eventSums) add(windows []string, count, value float64) {
	e.v[0] += count
	e.v[1] += value
	cs, vs := windowSplit(catalog.MustLookup("conversions").Storage.Kind, count), windowSplit(catalog.Micros, value)
	for _, w := range windows {
		x := e.win[w]
		if x == nil {
			x = &[2]float64{}
			e.win[w] = x
		}
		x[0] += cs[w]
		x[1] += vs[w]
	}
}

// windowSplit is the fake's attribution of one fact's conversions (or value)
// to Meta's windows: the demo's number is the default window, 7-day click or
// 1-day view, of which a fifth (in whole units: counts, or cents) is view
// through and the rest 7-day click; 1-day click is three quarters of the
// 7-day click, 28-day click adds a tenth, 1-day engaged view is a twentieth.
// Deterministic and additive over facts, so every level sums alike.
func windowSplit(kind catalog.ColumnKind, v float64) map[string]float64 {
	unit := 1.0
	if kind == catalog.Micros {
		unit = 10000
	}
	part := func(x float64) float64 { return math.Floor(x/unit) * unit }
	view := part(v / 5)
	click7 := v - view
	return map[string]float64{"1d_view": view, "7d_click": click7, "1d_click": part(click7 * 3 / 4),
		"28d_click": click7 + part(v/10), "1d_ev": part(v / 20)}
}

// demographicWindows are the windows Meta reports off-Meta actions for with
// age and gender breakdowns (Ads Action Stats reference); with another
// window asked, the fake leaves conversions out of such rows, as Meta does.
var demographicWindows = []string{"1d_click", "7d_click", "1d_view"}

// factSet is the demo's breakdown set a request reads: age_gender with age or
// gender, placement with platform_position, device_platform with a device or
// publisher_platform (Meta's delivery rows carry country alone:
// catalog.PlatformSets), else delivery. Each set sums to the same delivery,
// so the rows of one only are read: never a fact twice.
func (q *insightsReq) factSet() string {
	set := catalog.Delivery
	for _, b := range q.breakdowns {
		switch b {
		case "age", "gender":
			return "age_gender"
		case "platform_position":
			return "placement"
		case "impression_device", "device_platform", "publisher_platform":
			set = "device_platform"
		}
	}
	return set
}

// outRow is an Insights row in the API's format: numbers as strings, fields
// the request did not ask for left out.
type outRow struct {
	AccountID         string `json:"account_id,omitempty"`
	AccountName       string `json:"account_name,omitempty"`
	AccountCurrency   string `json:"account_currency,omitempty"`
	CampaignID        string `json:"campaign_id,omitempty"`
	CampaignName      string `json:"campaign_name,omitempty"`
	AdSetID           string `json:"adset_id,omitempty"`
	AdSetName         string `json:"adset_name,omitempty"`
	AdID              string `json:"ad_id,omitempty"`
	AdName            string `json:"ad_name,omitempty"`
	Objective         string `json:"objective,omitempty"`
	DateStart         string `json:"date_start"`
	DateStop          string `json:"date_stop"`
	Country           string `json:"country,omitempty"`
	ImpressionDevice  string `json:"impression_device,omitempty"`
	DevicePlatform    string `json:"device_platform,omitempty"`
	PublisherPlatform string `json:"publisher_platform,omitempty"`
	PlatformPosition  string `json:"platform_position,omitempty"`
	Age               string `json:"age,omitempty"`
	Gender            string `json:"gender,omitempty"`

	// metrics are the metric fields (spend, actions, reach, …) by name, as the
	// catalog says Meta gives each metric.
	metrics map[string]any
}

// MarshalJSON writes the row's fields and its metric fields.
func (r outRow) MarshalJSON() ([]byte, error) {
	type plain outRow
	b, err := json.Marshal(plain(r))
	if err != nil || len(r.metrics) == 0 {
		return b, err
	}
	m, err := json.Marshal(r.metrics)
	if err != nil {
		return nil, err
	}
	return append(append(b[:len(b)-1], ','), m[1:]...), nil
}

// insights computes a request's rows from the facts: summed per period, the
// level's objects and the breakdowns, in a stable order.
func (d *dataset) insights(q *insightsReq) []outRow {
	var acct ads.Account
	for _, a := range d.accounts {
		if a.AccountID == q.account {
			acct = a
		}
	}
	facts := d.facts[q.account]
	groups := map[groupKey]*sums{}
	set := q.factSet()
	defaultEvent, _, _ := strings.Cut(acct.ConversionActions, ",")
	if defaultEvent = strings.TrimSpace(defaultEvent); defaultEvent == "" {
		defaultEvent = "purchase"
	}
	// Other conversion actions are reported from the demo's conversion_action
	// rows, which are per campaign: at account and campaign level, without
	// breakdowns.
	extras := len(q.breakdowns) == 0 && (q.level == "account" || q.level == "campaign")
	for _, sp := range q.spans {
		lo := sort.Search(len(facts), func(i int) bool { return !facts[i].Date.Before(sp.since) })
		for i := lo; i < len(facts) && !facts[i].Date.After(sp.until); i++ {
			f := &facts[i]
			key := f.BreakdownKey()
			extra := extras && key == "conversion_action" && f.ConversionAction != defaultEvent
			if key != set && !extra || !q.keep(f) {
				continue
			}
			k := groupKey{}
			k.start, k.stop = q.bucket(sp, f.Date)
			switch q.level {
			case "ad":
				k.ad = f.AdID
				fallthrough
			case "adset":
				k.adset = f.AdSetID
				fallthrough
			case "campaign":
				k.campaign = f.CampaignID
			}
			for _, b := range q.breakdowns {
				switch b {
				case "country":
					k.country = f.Country
				case "impression_device", "device_platform":
					k.device = metaDevice(b, f.Device, f.AdID)
				case "publisher_platform":
					k.platform = f.PublisherPlatform
				case "age":
					k.age = f.Age
				case "gender":
					k.gender = f.Gender
				case "platform_position":
					k.position = metaPosition(f.PublisherPlatform, f.Placement)
				}
			}
			s := groups[k]
			if s == nil {
				s = &sums{}
				groups[k] = s
			}
			if extra {
				s.event(f.ConversionAction).add(q.windows, f.Measures[catalog.Conversions], f.Measures[catalog.ConversionValue])
				continue
			}
			for m, v := range f.Measures {
				if v != ads.NotReported {
					s.m[m] += v
				}
			}
			if c, v := f.Measures[catalog.Conversions], f.Measures[catalog.ConversionValue]; c > 0 || v > 0 {
				s.event(defaultEvent).add(q.windows, max(c, 0), max(v, 0))
			}
		}
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		if c := a.stop.Compare(b.stop); c != 0 {
			return c
		}
		for _, p := range [][2]string{{a.campaign, b.campaign}, {a.adset, b.adset}, {a.ad, b.ad}, {a.country, b.country}, {a.device, b.device}, {a.platform, b.platform},
			{a.age, b.age}, {a.gender, b.gender}, {a.position, b.position}} {
			if c := strings.Compare(p[0], p[1]); c != 0 {
				return c
			}
		}
		return 0
	})
	rows := make([]outRow, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, d.row(q, acct, k, groups[k]))
	}
	return rows
}

func (d *dataset) row(q *insightsReq, acct ads.Account, k groupKey, s *sums) outRow {
	r := outRow{DateStart: k.start.Format(time.DateOnly), DateStop: k.stop.Format(time.DateOnly),
		Country: k.country, PublisherPlatform: k.platform, Gender: k.gender, PlatformPosition: k.position, Age: metaAge(k.age)}
	if len(q.breakdowns) > 0 {
		for _, b := range q.breakdowns {
			switch b {
			case "impression_device":
				r.ImpressionDevice = k.device
			case "device_platform":
				r.DevicePlatform = k.device
			}
		}
	}
	f := q.fields
	if f["account_id"] {
		r.AccountID = strings.TrimPrefix(acct.AccountID, "act_")
	}
	if f["account_name"] {
		r.AccountName = acct.AccountName
	}
	if f["account_currency"] {
		r.AccountCurrency = acct.Currency
	}
	c := d.campaigns[k.campaign]
	if k.campaign != "" {
		if f["campaign_id"] {
			r.CampaignID = k.campaign
		}
		if f["campaign_name"] {
			r.CampaignName = c.Name
		}
		if f["objective"] {
			r.Objective = c.Objective
		}
	}
	if k.adset != "" {
		if f["adset_id"] {
			r.AdSetID = k.adset
		}
		if f["adset_name"] {
			r.AdSetName = d.adsets[k.adset].Name
		}
	}
	if k.ad != "" {
		if f["ad_id"] {
			r.AdID = k.ad
		}
		if f["ad_name"] {
			r.AdName = d.ads[k.ad].Name
		}
	}
	offsite := true
	if slices.Contains(q.breakdowns, "age") || slices.Contains(q.breakdowns, "gender") {
		for _, w := range q.windows {
			if !slices.Contains(demographicWindows, w) {
				offsite = false
			}
		}
	}
	r.metrics = metrics(f, s, q.windows, offsite)
	if f["reach"] && len(q.breakdowns) == 0 && (q.level == "account" || q.level == "campaign") {
		key := reachKey{level: q.level, object: acct.AccountID}
		if q.level == "campaign" {
			key.object = k.campaign
		}
		if g := grainOf(k.start, k.stop); g != "" && key.object != "" {
			key.grain, key.start = g, k.start
			if v, ok := d.reach[key]; ok {
				r.metrics["reach"] = strconv.FormatInt(v, 10)
			}
		}
	}
	return r
}

// eventTypes are the action types the fake reports a conversion event under
// (Meta reports one purchase under several: the pixel's, omni_ and the plain
// name).
func eventTypes(event string) []string {
	omni := event
	if event == "initiate_checkout" {
		omni = "initiated_checkout"
	}
	return []string{"offsite_conversion.fb_pixel_" + event, "omni_" + omni, event}
}

// insightsMetric is how the Insights report gives a stored metric: a number
// field, or a list of actions whose Action entry (or, with Conversions, the
// conversion events' entries) is the metric.
type insightsMetric struct {
	Field, Action string
	Conversions   bool
}

// insightsMetrics are the Insights fields the fake serves each stored catalog
// metric under. The fake keeps its own list, apart from the connector's, so
// that a field the connector misspells fails the tests (Insights parameters
// reference, developers.facebook.com/docs/marketing-api/insights/parameters).
var insightsMetrics = map[string]insightsMetric{
	"spend":            {Field: "spend"},
	"impressions":      {Field: "impressions"},
	"clicks":           {Field: "clicks"},
	"link_clicks":      {Field: "inline_link_clicks"},
	"conversions":      {Field: "actions", Conversions: true},
	"conversion_value": {Field: "action_values", Conversions: true},
	"video_views":      {Field: "actions", Action: "video_view"},
	"video_views_p100": {Field: "video_p100_watched_actions", Action: "video_view"},
}

// outAction is one entry of a list of actions: action_type, value and, when
// windows were asked, one value per window.
type outAction map[string]string

// metrics are a group's metric fields the request asked for, written as the
// catalog says Meta gives each metric: number fields as strings, and actions
// (link clicks as link_click actions too, as Meta does), zero ones left out.
// Conversion events carry the windows asked; offsite false leaves them out
// (Meta's rule for age and gender with some windows).
func metrics(asked map[string]bool, s *sums, windows []string, offsite bool) map[string]any {
	out := map[string]any{}
	lists := map[string][]outAction{}
	for m, f := range catalog.Measures() {
		mf, ok := insightsMetrics[f.Name]
		v := s.m[m]
		switch {
		case !ok || !asked[mf.Field]:
		case mf.Action == "" && !mf.Conversions:
			if text := formatValue(f.Storage.Kind, v); text != "" {
				out[mf.Field] = text
			}
		case mf.Conversions:
			if !offsite {
				continue
			}
			i := 0
			if catalog.Measure(m) == catalog.ConversionValue {
				i = 1
			}
			for _, name := range slices.Sorted(maps.Keys(s.events)) {
				e := s.events[name]
				if e.v[i] <= 0 {
					continue
				}
				for _, t := range eventTypes(name) {
					a := outAction{"action_type": t, "value": formatValue(f.Storage.Kind, e.v[i])}
					for _, w := range windows {
						var x float64
						if wv := e.win[w]; wv != nil {
							x = wv[i]
						}
						a[w] = formatValue(f.Storage.Kind, x)
						if a[w] == "" {
							a[w] = "0"
						}
					}
					lists[mf.Field] = append(lists[mf.Field], a)
				}
			}
		case v <= 0:
		default:
			lists[mf.Field] = append(lists[mf.Field], outAction{"action_type": mf.Action, "value": formatValue(f.Storage.Kind, v)})
		}
	}
	if link := s.m[catalog.LinkClicks]; asked["actions"] && link > 0 {
		lists["actions"] = append(lists["actions"], outAction{"action_type": "link_click", "value": strconv.FormatInt(int64(link), 10)})
	}
	for field, list := range lists {
		slices.SortStableFunc(list, func(a, b outAction) int { return strings.Compare(a["action_type"], b["action_type"]) })
		out[field] = list
	}
	return out
}

// metaPosition is Meta's platform_position for a demo placement: Meta names
// stories, reels, explore, search and profile feeds after their platform
// (facebook_stories, instagram_reels, instagram_explore…).
func metaPosition(platform, placement string) string {
	switch placement {
	case "story":
		if platform == "facebook" || platform == "instagram" || platform == "messenger" {
			return platform + "_stories"
		}
	case "reels":
		if platform == "facebook" || platform == "instagram" {
			return platform + "_reels"
		}
	case "explore":
		return "instagram_explore"
	case "inbox":
		return "messenger_inbox"
	case "classic":
		return "an_classic"
	case "search", "profile_feed":
		if platform == "instagram" {
			return "instagram_" + placement
		}
	}
	return placement
}

// metaAge is Meta's age bracket for a demo age: Meta writes "Unknown".
func metaAge(age string) string {
	if age == "unknown" {
		return "Unknown"
	}
	return age
}

// formatValue writes a measure as Meta does: money as the shortest exact
// decimal ("" for zero), counts as integers, doubles as the shortest decimal.
func formatValue(k catalog.ColumnKind, v float64) string {
	switch k {
	case catalog.Micros:
		return formatMicros(int64(v))
	case catalog.Integer:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// grainOf is the reach grain a period is exactly, or "" (the fake only knows
// reach for whole days, ISO weeks and calendar months, as the demo stores it).
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

// bucket is the period of the request's time increment that holds day t.
func (q *insightsReq) bucket(sp span, t time.Time) (time.Time, time.Time) {
	switch q.increment {
	case "all_days":
		return sp.since, sp.until
	case "monthly":
		start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		stop := start.AddDate(0, 1, -1)
		return later(start, sp.since), earlier(stop, sp.until)
	}
	n, _ := strconv.Atoi(q.increment)
	days := int(t.Sub(sp.since).Hours() / 24)
	start := sp.since.AddDate(0, 0, days/n*n)
	return start, earlier(start.AddDate(0, 0, n-1), sp.until)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// keep applies the request's filtering to a fact.
func (q *insightsReq) keep(f *ads.Fact) bool {
	for _, fl := range q.filters {
		var v string
		switch fl.field {
		case "campaign.id":
			v = f.CampaignID
		case "adset.id":
			v = f.AdSetID
		case "ad.id":
			v = f.AdID
		}
		in := slices.Contains(fl.values, v)
		switch fl.operator {
		case "IN", "EQUAL":
			if !in {
				return false
			}
		case "NOT_IN", "NOT_EQUAL":
			if in {
				return false
			}
		}
	}
	return true
}

// metaDevice is the Meta breakdown value of a demo device: phones and tablets
// split between iOS and Android by ad, so that one device has several Meta
// values.
func metaDevice(breakdown, device, adID string) string {
	odd := len(adID) > 0 && adID[len(adID)-1]%2 == 1
	switch breakdown {
	case "impression_device":
		switch device {
		case "mobile":
			if odd {
				return "android_smartphone"
			}
			return "iphone"
		case "tablet":
			if odd {
				return "android_tablet"
			}
			return "ipad"
		}
	case "device_platform":
		switch device {
		case "mobile":
			if odd {
				return "mobile_web"
			}
			return "mobile_app"
		case "tablet":
			return "mobile_app" // device_platform has no tablet
		}
	}
	return device
}

// formatMicros writes micros as Meta writes money: the shortest exact decimal.
func formatMicros(m int64) string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := fmt.Sprintf("%d.%06d", m/1e6, m%1e6)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if neg {
		s = "-" + s
	}
	return s
}

package tiktok

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// levels are TikTok's data level of each object level (catalog.LevelAccount
// … LevelAd), the dimension that identifies its rows and the attribute metric
// that names them.
var levels = [...]struct{ dataLevel, id, name string }{
	catalog.LevelAccount:  {"AUCTION_ADVERTISER", "advertiser_id", ""},
	catalog.LevelCampaign: {"AUCTION_CAMPAIGN", "campaign_id", "campaign_name"},
	catalog.LevelAdSet:    {"AUCTION_ADGROUP", "adgroup_id", "adgroup_name"},
	catalog.LevelAd:       {"AUCTION_AD", "ad_id", "ad_name"},
}

// breakdownDims are the AUDIENCE report's dimension behind each catalog
// breakdown. publisher_platform and placement are both TikTok's placement
// (TikTok's publishers are its placements: tiktok, pangle,
// global_app_bundle). conversion_action has none: its rows come from the
// per-event metrics of a BASIC report (events below).
var breakdownDims = map[string]string{
	"country":            "country_code",
	"device":             "platform",
	"publisher_platform": "placement",
	"placement":          "placement",
	"age":                "age",
	"gender":             "gender",
	"conversion_action":  "",
}

// audienceDims write an AUDIENCE dimension's value into a fact of set (the
// catalog.BreakdownSet key): adding a breakdown TikTok reports is an entry
// here and one in breakdownDims. Rows of a set other than delivery never
// have an empty dimension (as the warehouse stores them): what TikTok leaves
// empty or "-" is "unknown".
var audienceDims = map[string]func(f *ads.Fact, v, set string){
	"country_code": func(f *ads.Fact, v, _ string) { f.Country = v },
	"platform":     func(f *ads.Fact, v, set string) { f.Device = known(deviceOf(v), set) },
	"placement": func(f *ads.Fact, v, set string) {
		f.PublisherPlatform = known(placementOf(v), set)
		if set == "placement" {
			f.Placement = f.PublisherPlatform
		}
	},
	"age":    func(f *ads.Fact, v, _ string) { f.Age = ageOf(v) },
	"gender": func(f *ads.Fact, v, _ string) { f.Gender = genderOf(v) },
}

// known is v, or "unknown" when v is empty in a set other than delivery.
func known(v, set string) string {
	if v == "" && set != catalog.Delivery {
		return "unknown"
	}
	return v
}

// ageOf maps TikTok's age groups onto the catalog's brackets: AGE_18_24 →
// "18-24", …, AGE_45_54 → "45-54". TikTok's oldest group, AGE_55_100, spans
// Meta's and Google's 55-64 and 65+, which it cannot be split into: it is
// "55+" (docs/tiktok.md, "Breakdowns"). NONE and empty are "unknown"; other
// values pass through in lower case.
func ageOf(v string) string {
	u := strings.ToUpper(strings.TrimSpace(v))
	switch u {
	case "", "NONE", "UNKNOWN":
		return "unknown"
	case "AGE_55_100":
		return "55+"
	}
	if lo, hi, ok := strings.Cut(strings.TrimPrefix(u, "AGE_"), "_"); ok && strings.HasPrefix(u, "AGE_") && digits(lo) && digits(hi) {
		return lo + "-" + hi
	}
	return strings.ToLower(v)
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// genderOf maps TikTok's genders (MALE, FEMALE, NONE; GENDER_MALE and
// GENDER_FEMALE as targeting writes them) onto the catalog's: male, female,
// unknown.
func genderOf(v string) string {
	switch strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(v)), "GENDER_") {
	case "MALE":
		return "male"
	case "FEMALE":
		return "female"
	}
	return "unknown"
}

// DefaultConversionAction is what Accounts reports as every advertiser's
// ConversionActions, and the name of the conversion_action rows that carry
// the conversion metric: TikTok's conversion counts each ad group's
// optimization event, complete_payment (Complete Payment) for the sales
// campaigns adsmcp is built for; the advertiser has no account-level
// setting to read (docs/tiktok.md, "Conversions").
const DefaultConversionAction = "complete_payment"

// DefaultAttributionWindow is what Accounts reports as every advertiser's
// AttributionWindow: each ad group's own (catalog.PerAdGroupWindow). TikTok
// sets attribution per ad group (its default is 7-day click, 1-day view, but
// an ad group may use another), /advertiser/info/ has no field for it, and
// the report takes no window: claiming 7d_click_1d_view would be a guess.
const DefaultAttributionWindow = catalog.PerAdGroupWindow

// event is one TikTok event of the conversion_action breakdown: our name (the
// TikTok Pixel's standard event in snake case, as the demo names them) and the
// integrated report's metrics of its count and of its value ("" when TikTok
// gives none).
type event struct{ name, count, value string }

// events are the events a conversion_action query reads besides the default
// action, whose rows are the conversion metric and its value
// (catalog conversions and conversion_value). TikTok reports each Pixel
// event as metrics of its own, a count and a value, not as rows: the names
// are those the Matatika tap-tiktok requests at AUCTION_CAMPAIGN with
// stat_time_day (docs/tiktok.md, "Conversion actions"; not verified against
// the real API).
var events = []event{
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
}

// deviceOf maps the AUDIENCE dimension platform onto the catalog's devices:
// ANDROID and IOS are mobile, PC desktop; TikTok has no tablet (tablets report
// under their operating system). Other values pass through in lower case.
func deviceOf(v string) string {
	switch strings.ToUpper(v) {
	case "ANDROID", "IOS":
		return "mobile"
	case "PC":
		return "desktop"
	}
	return strings.ToLower(v)
}

// placementOf maps a placement (PLACEMENT_TIKTOK, PLACEMENT_PANGLE,
// PLACEMENT_GLOBAL_APP_BUNDLE) onto the catalog's publisher platforms of
// TikTok (catalog/platforms.go): the name without its prefix, in lower case.
func placementOf(v string) string {
	return strings.ToLower(strings.TrimPrefix(strings.ToUpper(v), "PLACEMENT_"))
}

// filterFields are the dimensions whose IN filters are also sent to TikTok,
// by the report's filter field (IDs only: their matching cannot differ from the
// warehouse's). Every filter is applied again by the warehouse SQL, so sending
// one only saves data.
var filterFields = map[string]string{
	"campaign_id": "campaign_ids",
	"adset_id":    "adgroup_ids",
	"ad_id":       "ad_ids",
}

// reportFilter is one entry of the report's filtering; filter_value is a
// JSON list written as a string, as TikTok takes it.
type reportFilter struct {
	FieldName   string `json:"field_name"`
	FilterType  string `json:"filter_type"`
	FilterValue string `json:"filter_value"`
}

// span is an inclusive range of days.
type span struct{ start, end time.Time }

// fetchPlan is the live source's plan (live.Plan) as TikTok's reports: what
// every advertiser is asked.
type fetchPlan struct {
	level catalog.Level // the report's data level (levels)
	// set is the catalog.BreakdownSet the rows are of (delivery, age_gender,
	// placement, conversion_action).
	set      string
	audience []string // the AUDIENCE report's dimensions, in order
	events   bool     // conversion_action: the per-event metrics
	metrics  []string // report metrics: attributes first, then measures
	daily    bool     // stat_time_day is a dimension
	spans    []span   // one report per span (and per filter set)
	// filterSets are the filterings of the requests: the ID filters split into
	// sets of at most MaxFilterIDs IDs; one empty set without ID filters.
	filterSets     [][]reportFilter
	campaignStatus bool // campaign_status is used: from /campaign/get/
	// reach is the reach the warehouse reads (live.Plan.Reach), nil for none:
	// per advertiser or campaign, per whole period of its grain. Reach is
	// never summed, so every period is its own report: daily reach by
	// stat_time_day, weekly and monthly reach one report per week or month
	// without a time dimension, whose reach TikTok deduplicates over it.
	reach *live.Reach
	// reachOnly: the reach alone, no facts and no names (live.Plan.ReachOnly).
	reachOnly bool
}

// compile maps the live source's plan onto the reports' shape. Which level,
// set, metrics, grain and reach a fetch needs is the plan's; this is only how
// TikTok is asked for them.
func compile(p *live.Plan) (*fetchPlan, error) {
	if p.Level < catalog.LevelAccount || p.Level > catalog.LevelAd {
		return nil, fmt.Errorf("tiktok: no data level for object level %d", p.Level)
	}
	fp := &fetchPlan{level: p.Level, set: p.Set.Key, campaignStatus: p.Uses("campaign_status"),
		reach: p.Reach, reachOnly: p.ReachOnly}
	if err := fp.breakdowns(p); err != nil {
		return nil, err
	}
	fp.metrics = reportMetrics(p, fp.events)
	sets, err := filterSets(p.Filters)
	if err != nil {
		return nil, err
	}
	fp.filterSets = sets
	switch p.Grain {
	case fit.Daily, fit.Weekly:
		// Weekly: daily rows, which the warehouse rolls up into ISO weeks
		// exactly (TikTok's report has no week dimension).
		fp.daily = true
		fp.spans = splitDays(p.Start, p.End, MaxDailySpan)
	case fit.Monthly:
		// One report per calendar month (cut by the range); the plan asks
		// months for quarters too, which the warehouse rolls up exactly.
		fp.spans = months(p.Start, p.End)
	case fit.Total:
		fp.spans = splitDays(p.Start, p.End, MaxSpan)
	default:
		return nil, fmt.Errorf("tiktok: no report for grain %q", p.Grain)
	}
	return fp, nil
}

// breakdowns sets the AUDIENCE dimensions behind the plan's breakdowns, in
// the order the query names them (the request's dimensions list), or events
// for conversion_action.
func (fp *fetchPlan) breakdowns(p *live.Plan) error {
	for _, name := range p.Dimensions {
		if !slices.Contains(p.Breakdowns, name) {
			continue
		}
		dim, ok := breakdownDims[name]
		switch {
		case !ok:
			return fmt.Errorf("tiktok: the AUDIENCE report has no dimension for %s", name)
		case dim == "":
			fp.events = true
		case !slices.Contains(fp.audience, dim):
			fp.audience = append(fp.audience, dim)
		}
	}
	if fp.events && len(fp.audience) > 0 {
		return fmt.Errorf("tiktok: conversion_action cannot be combined with other breakdowns")
	}
	return nil
}

// reportMetrics are the report's metrics for p: the attributes that name the
// rows' objects (the parents' IDs too, and objective_type for
// campaign_objective), then the plan's measures as TikTok spells them, then,
// for conversion_action, conversion and its value and every event's metrics.
func reportMetrics(p *live.Plan, perEvent bool) []string {
	var attrs, measures []string
	for l := catalog.LevelCampaign; l <= p.Level; l++ {
		attrs = append(attrs, levels[l].name)
		if l < p.Level {
			attrs = append(attrs, levels[l].id) // the parents' IDs are attributes
		}
	}
	if p.Uses("campaign_objective") {
		attrs = append(attrs, "objective_type")
	}
	add := func(name string) {
		if f := metricFields[name]; f != "" && !slices.Contains(measures, f) {
			measures = append(measures, f)
		}
	}
	for _, m := range p.Measures {
		add(m)
	}
	if len(measures) == 0 {
		// Rows must exist for the groups to exist, even when the plan's only
		// measure is one TikTok does not report (link_clicks).
		add("impressions")
	}
	if perEvent {
		add("conversions")
		add("conversion_value")
		for _, e := range events {
			measures = append(measures, e.count)
			if e.value != "" {
				measures = append(measures, e.value)
			}
		}
	}
	return append(attrs, measures...)
}

// filterSets splits the ID filters (IN or equals on filterFields; the others
// are applied by the warehouse only) into the filterings of separate requests,
// at most MaxFilterIDs IDs per filter: every combination of one chunk of
// each filter (the rows of different chunks are different objects, so the
// requests' rows add up to the whole).
func filterSets(filters []query.Filter) ([][]reportFilter, error) {
	sets := [][]reportFilter{nil}
	for _, f := range filters {
		if _, ok := filterFields[f.Field]; f.Metric || !ok || f.Operator != query.Equals && f.Operator != query.In {
			continue
		}
		var values []string
		for _, v := range f.Values {
			s, ok := v.(string)
			if !ok || !idRE.MatchString(s) {
				return nil, fmt.Errorf("tiktok: filter on %s: %v is not a TikTok ID (digits)", f.Field, v)
			}
			if !slices.Contains(values, s) {
				values = append(values, s)
			}
		}
		var next [][]reportFilter
		for chunk := range slices.Chunk(values, MaxFilterIDs) {
			rf := reportFilter{FieldName: filterFields[f.Field], FilterType: "IN", FilterValue: mustJSON(chunk)}
			for _, s := range sets {
				next = append(next, append(slices.Clone(s), rf))
			}
		}
		sets = next
	}
	return sets, nil
}

// splitDays cuts [start, end] into spans of at most n days.
func splitDays(start, end time.Time, n int) []span {
	var out []span
	for s := start; !s.After(end); s = s.AddDate(0, 0, n) {
		out = append(out, span{s, earlier(s.AddDate(0, 0, n-1), end)})
	}
	return out
}

// months cuts [start, end] at calendar months.
func months(start, end time.Time) []span {
	var out []span
	for s := start; !s.After(end); {
		next := firstOfMonth(s).AddDate(0, 1, 0)
		out = append(out, span{s, earlier(next.AddDate(0, 0, -1), end)})
		s = next
	}
	return out
}

// reachSpans are the reports of reach r: daily reach over spans of at most
// MaxDailySpan days, else one per week or month.
func reachSpans(r *live.Reach) []span {
	switch r.Grain {
	case fit.Daily:
		return splitDays(r.First, r.Last, MaxDailySpan)
	case fit.Weekly:
		var out []span
		for w := r.First; !w.After(r.Last); w = w.AddDate(0, 0, 7) {
			out = append(out, span{w, w.AddDate(0, 0, 6)})
		}
		return out
	case fit.Monthly:
		var out []span
		for m := r.First; !m.After(r.Last); m = m.AddDate(0, 1, 0) {
			out = append(out, span{m, m.AddDate(0, 1, -1)})
		}
		return out
	}
	return nil
}

func firstOfMonth(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// reportParams are the parameters of one report request (without page).
func reportParams(advertiserID string, l catalog.Level, audience []string, daily bool, metrics []string, sp span, filters []reportFilter, pageSize int) url.Values {
	v := url.Values{}
	v.Set("advertiser_id", advertiserID)
	dims := []string{levels[l].id}
	if len(audience) > 0 {
		v.Set("report_type", "AUDIENCE")
		dims = append(dims, audience...)
	} else {
		v.Set("report_type", "BASIC")
	}
	if daily {
		dims = append(dims, "stat_time_day")
	}
	v.Set("data_level", levels[l].dataLevel)
	v.Set("dimensions", mustJSON(dims))
	v.Set("metrics", mustJSON(metrics))
	v.Set("start_date", sp.start.Format(time.DateOnly))
	v.Set("end_date", sp.end.Format(time.DateOnly))
	v.Set("page_size", fmt.Sprint(pageSize))
	if len(filters) > 0 {
		v.Set("filtering", mustJSON(filters))
	}
	return v
}

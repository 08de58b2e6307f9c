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
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// level is a report data level; its order is the object hierarchy.
type level int

const (
	levelAccount level = iota
	levelCampaign
	levelAdGroup
	levelAd
)

// levels are TikTok's data level of each level, the dimension that identifies
// its rows and the attribute metric that names them.
var levels = [...]struct{ dataLevel, id, name string }{
	levelAccount:  {"AUCTION_ADVERTISER", "advertiser_id", ""},
	levelCampaign: {"AUCTION_CAMPAIGN", "campaign_id", "campaign_name"},
	levelAdGroup:  {"AUCTION_ADGROUP", "adgroup_id", "adgroup_name"},
	levelAd:       {"AUCTION_AD", "ad_id", "ad_name"},
}

func (l level) String() string { return [...]string{"account", "campaign", "adgroup", "ad"}[l] }

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

// fetchPlan is what a query needs from every advertiser.
type fetchPlan struct {
	level level
	// set is the catalog.BreakdownSet the query reads (delivery, age_gender,
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
	reach          *reachPlan
	start, end     time.Time
}

// reachPlan is the reach the warehouse reads for the query (duckdb.ReachNeeded):
// per advertiser or campaign, per whole period of grain from first to last
// (period starts). Reach is never summed, so every period is its own report:
// daily reach by stat_time_day, weekly and monthly reach one report per week
// or month without a time dimension, whose reach TikTok deduplicates over it.
type reachPlan struct {
	level       level
	grain       fit.Grain
	first, last time.Time
}

// planQuery turns a normalized query into the reports' shape.
func planQuery(q *query.Query) (*fetchPlan, error) {
	if q.End.Before(q.Start) {
		return nil, fmt.Errorf("tiktok: date range %s … %s is reversed", q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly))
	}
	p := &fetchPlan{start: q.Start, end: q.End, set: catalog.Delivery}
	if s, ok := q.BreakdownSet(catalog.TikTokAds); ok {
		p.set = s.Key
	}
	used := usedMetrics(q)
	var measures []string
	addMetric := func(name string) {
		if f, ok := catalog.Lookup(name); ok && f.Storage != nil && metricFields[name] != "" && !slices.Contains(measures, metricFields[name]) {
			measures = append(measures, metricFields[name])
		}
	}
	for _, m := range used {
		f, ok := catalog.Lookup(m)
		if !ok || !f.IsMetric() {
			return nil, fmt.Errorf("tiktok: %q is not a catalog metric", m)
		}
		switch f.Aggregation {
		case catalog.Sum:
			addMetric(m)
		case catalog.Ratio, catalog.NonAdditive:
			addMetric(f.Numerator)
			addMetric(f.Denominator)
		}
	}
	if len(measures) == 0 {
		// Rows must exist for the groups to exist, even when only reach is asked.
		measures = append(measures, metricFields["impressions"])
	}
	objective := false
	useDim := func(name string) error {
		f, ok := catalog.Lookup(name)
		if !ok || f.IsMetric() {
			return fmt.Errorf("tiktok: %q is not a catalog dimension", name)
		}
		switch f.Level {
		case catalog.LevelCampaign:
			p.level = max(p.level, levelCampaign)
		case catalog.LevelAdSet:
			p.level = max(p.level, levelAdGroup)
		case catalog.LevelAd:
			p.level = max(p.level, levelAd)
		case catalog.LevelBreakdown:
			dim, ok := breakdownDims[name]
			if !ok {
				return fmt.Errorf("tiktok: the AUDIENCE report has no dimension for %s", name)
			}
			if dim == "" {
				p.events = true
			} else if !slices.Contains(p.audience, dim) {
				p.audience = append(p.audience, dim)
			}
		}
		switch name {
		case "campaign_objective":
			objective = true
		case "campaign_status":
			p.campaignStatus = true
		}
		return nil
	}
	var ids []query.Filter
	for _, d := range q.Dimensions {
		if err := useDim(d); err != nil {
			return nil, err
		}
	}
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		if err := useDim(f.Field); err != nil {
			return nil, err
		}
		if _, ok := filterFields[f.Field]; ok && (f.Operator == query.Equals || f.Operator == query.In) {
			ids = append(ids, f)
		}
	}
	if p.set != catalog.Delivery {
		// The sets other than delivery are stored per campaign (catalog
		// BreakdownSet.Level): read per campaign, whatever the query's level,
		// so that what no campaign owns stays out as it does in the warehouse.
		p.level = max(p.level, levelCampaign)
	}
	if p.events && len(p.audience) > 0 {
		return nil, fmt.Errorf("tiktok: conversion_action cannot be combined with other breakdowns")
	}
	if p.events {
		for _, m := range []string{"conversions", "conversion_value"} {
			if f := metricFields[m]; !slices.Contains(measures, f) {
				measures = append(measures, f)
			}
		}
		for _, e := range events {
			measures = append(measures, e.count)
			if e.value != "" {
				measures = append(measures, e.value)
			}
		}
	}
	for l := levelCampaign; l <= p.level; l++ {
		p.metrics = append(p.metrics, levels[l].name)
		if l < p.level {
			p.metrics = append(p.metrics, levels[l].id) // the parents' IDs are attributes
		}
	}
	if objective {
		p.metrics = append(p.metrics, "objective_type")
	}
	p.metrics = append(p.metrics, measures...)
	sets, err := filterSets(ids)
	if err != nil {
		return nil, err
	}
	p.filterSets = sets

	switch q.Grain {
	case fit.Daily, fit.Weekly:
		// Weekly: daily rows, which the warehouse rolls up into ISO weeks exactly.
		p.daily = true
		p.spans = splitDays(q.Start, q.End, MaxDailySpan)
	case fit.Monthly, fit.Quarterly:
		// One report per calendar month (cut by the range); the warehouse rolls
		// months up into quarters exactly.
		p.spans = months(q.Start, q.End)
	case fit.Total:
		p.spans = splitDays(q.Start, q.End, MaxSpan)
	default:
		return nil, fmt.Errorf("tiktok: unknown grain %q", q.Grain)
	}
	if need := duckdb.ReachNeeded(q, used); need != nil {
		p.reach = &reachPlan{level: levelAccount, grain: need.Grain, first: need.First, last: need.Last}
		if need.Level == "campaign" {
			p.reach.level = levelCampaign
		}
	}
	return p, nil
}

// usedMetrics are the metrics q reads: its own and those its filters test.
func usedMetrics(q *query.Query) []string {
	used := slices.Clone(q.Metrics)
	for _, f := range q.Filters {
		if f.Metric && !slices.Contains(used, f.Field) {
			used = append(used, f.Field)
		}
	}
	return used
}

// filterSets splits the ID filters into the filterings of separate requests,
// at most MaxFilterIDs IDs per filter: every combination of one chunk of
// each filter (the rows of different chunks are different objects, so the
// requests' rows add up to the whole).
func filterSets(ids []query.Filter) ([][]reportFilter, error) {
	sets := [][]reportFilter{nil}
	for _, f := range ids {
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

// spans are the reports of the reach plan: daily reach over spans of at most
// MaxDailySpan days, else one per week or month.
func (rp *reachPlan) spans() []span {
	switch rp.grain {
	case fit.Daily:
		return splitDays(rp.first, rp.last, MaxDailySpan)
	case fit.Weekly:
		var out []span
		for w := rp.first; !w.After(rp.last); w = w.AddDate(0, 0, 7) {
			out = append(out, span{w, w.AddDate(0, 0, 6)})
		}
		return out
	case fit.Monthly:
		var out []span
		for m := rp.first; !m.After(rp.last); m = m.AddDate(0, 1, 0) {
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
func reportParams(advertiserID string, l level, audience []string, daily bool, metrics []string, sp span, filters []reportFilter, pageSize int) url.Values {
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

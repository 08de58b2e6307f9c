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

// audienceDim is a catalog breakdown dimension and the AUDIENCE report
// dimension behind it: adding a breakdown TikTok reports (age, gender) is an
// entry here, with how its value is written into the fact.
type audienceDim struct {
	field string                  // the AUDIENCE report's dimension
	set   func(*ads.Fact, string) // writes TikTok's value into the fact
}

var audienceDims = map[string]audienceDim{
	"country":            {"country_code", func(f *ads.Fact, v string) { f.Country = v }},
	"device":             {"platform", func(f *ads.Fact, v string) { f.Device = deviceOf(v) }},
	"publisher_platform": {"placement", func(f *ads.Fact, v string) { f.PublisherPlatform = placementOf(v) }},
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
	level    level
	audience []string // the catalog breakdowns asked, in order
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
	p := &fetchPlan{start: q.Start, end: q.End}
	used := usedMetrics(q)
	var measures []string
	addMetric := func(name string) {
		if f, ok := catalog.Lookup(name); ok && f.Storage != nil && f.TikTok != nil && !slices.Contains(measures, f.TikTok.Field) {
			measures = append(measures, f.TikTok.Field)
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
		measures = append(measures, catalog.MustLookup("impressions").TikTok.Field)
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
			if _, ok := audienceDims[name]; !ok {
				return fmt.Errorf("tiktok: the AUDIENCE report has no dimension for %s", name)
			}
			if !slices.Contains(p.audience, name) {
				p.audience = append(p.audience, name)
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
		for _, a := range audience {
			dims = append(dims, audienceDims[a].field)
		}
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

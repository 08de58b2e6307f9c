package googleads

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// level is how deep in Google's hierarchy a query's rows must go.
type level int

const (
	levelCustomer level = iota
	levelCampaign
	levelAdGroup
	levelAd
)

// dimensionLevel is the level each catalog dimension needs (breakdowns are
// segments, handled apart).
var dimensionLevel = map[string]level{
	"platform": levelCustomer, "account_id": levelCustomer, "account_name": levelCustomer, "currency": levelCustomer,
	"attribution_window": levelCustomer,
	"campaign_id":        levelCampaign, "campaign_name": levelCampaign, "campaign_objective": levelCampaign, "campaign_status": levelCampaign,
	"adset_id": levelAdGroup, "adset_name": levelAdGroup,
	"ad_id": levelAd, "ad_name": levelAd,
	"country": levelCustomer, "device": levelCustomer, "publisher_platform": levelCustomer,
	// The other breakdown sets are fetched per campaign whatever the
	// query's dimensions (newPlan): they are stored per campaign.
	"age": levelCustomer, "gender": levelCustomer, "conversion_action": levelCustomer,
}

// setResources are the resources the breakdown sets other than delivery are
// read from (at campaign level), and setFields the field each adds to SELECT:
// age_range_view and gender_view rows are per ad group and criterion (the
// connector sums them per campaign); conversion actions are a segment of
// campaign that allows only conversion metrics (docs/googleads.md,
// "Breakdown sets").
var (
	setResources = map[string]string{"age": "age_range_view", "gender": "gender_view", "conversion_action": "campaign"}
	setFields    = map[string]string{"age": "ad_group_criterion.age_range.type", "gender": "ad_group_criterion.gender.type",
		"conversion_action": "segments.conversion_action_name"}
)

// metricFields are the GAQL metrics behind the catalog's stored metrics, in
// the order they are selected (the catalog's). A metric without one (link
// clicks) is not reported by Google: facts carry ads.NotReported.
var metricFields = func() []struct{ name, field string } {
	var out []struct{ name, field string }
	for _, f := range catalog.Measures() {
		if f.Google != nil {
			out = append(out, struct{ name, field string }{f.Name, f.Google.Field})
		}
	}
	return out
}()

// plan is what one query fetches from each account.
type plan struct {
	resource string
	level    level
	// Breakdowns: user_location_view (country), segments.device,
	// segments.ad_network_type (publisher_platform).
	country, device, network bool
	// set is the key of the breakdown set the query reads when it is not
	// delivery ("age", "gender", "conversion_action"); "" for delivery.
	set string
	// dateSegment is segments.date, segments.week, segments.month or "" (total).
	dateSegment string
	start, end  time.Time
	metrics     []string // GAQL metric fields
	where       []string // conditions after the date range
}

// newPlan decides what to fetch for q. A shape Google cannot report is a
// *query.Error saying what to ask instead.
func newPlan(q *query.Query) (*plan, error) {
	p := &plan{start: q.Start, end: q.End}
	fields := slices.Clone(q.Dimensions)
	for _, f := range q.Filters {
		if !f.Metric {
			fields = append(fields, f.Field)
		}
	}
	for _, d := range fields {
		l, ok := dimensionLevel[d]
		if !ok {
			return nil, fmt.Errorf("googleads: unknown dimension %q", d)
		}
		p.level = max(p.level, l)
		switch d {
		case "country":
			p.country = true
		case "device":
			p.device = true
		case "publisher_platform":
			p.network = true
		}
	}
	if p.country && p.level == levelAd {
		arg := "dimensions"
		if !slices.Contains(q.Dimensions, "country") || !slices.ContainsFunc(q.Dimensions, func(d string) bool { return dimensionLevel[d] == levelAd }) {
			arg = "filters"
		}
		return nil, &query.Error{Problems: []query.Problem{{
			Field: arg, Value: "country",
			Problem: "Google Ads reports countries (user_location_view) per ad group at the finest, not per ad",
			Fix:     "break down by country with adset_name or campaign_name, or drop country to see ads",
		}}}
	}
	if s, ok := q.BreakdownSet(Platform); ok && s.Key != catalog.Delivery {
		if _, known := setResources[s.Key]; !known {
			return nil, fmt.Errorf("googleads: breakdown set %q is not one Google Ads reports", s.Key)
		}
		if p.level > levelCampaign || p.country || p.device || p.network {
			// The normalizer refuses these; a plan never reads two sets.
			return nil, fmt.Errorf("googleads: breakdown set %q is stored per campaign, without other breakdowns", s.Key)
		}
		p.set, p.level = s.Key, levelCampaign
	}
	switch {
	case p.set != "":
		p.resource = setResources[p.set]
	case p.country:
		p.resource = "user_location_view"
	case p.level == levelAd:
		p.resource = "ad_group_ad"
	case p.level == levelAdGroup:
		p.resource = "ad_group"
	case p.level == levelCampaign:
		p.resource = "campaign"
	default:
		p.resource = "customer"
	}
	switch q.Grain {
	case fit.Daily:
		p.dateSegment = "segments.date"
	case fit.Weekly:
		p.dateSegment = "segments.week"
	case fit.Monthly, fit.Quarterly:
		// Quarterly: monthly rows, which the warehouse rolls up into quarters exactly.
		p.dateSegment = "segments.month"
	case fit.Total:
	default:
		return nil, fmt.Errorf("googleads: unknown grain %q", q.Grain)
	}

	// Metrics: the additive parts of every metric asked for or filtered on;
	// impressions always, so that rows are those with delivery. Conversion
	// actions allow only conversion metrics: conversions always instead.
	need := map[string]bool{"impressions": true}
	if p.set == "conversion_action" {
		need = map[string]bool{"conversions": true}
	}
	used := slices.Clone(q.Metrics)
	for _, f := range q.Filters {
		if f.Metric {
			used = append(used, f.Field)
		}
	}
	for _, m := range used {
		f, ok := catalog.Lookup(m)
		if !ok || !f.IsMetric() {
			return nil, fmt.Errorf("googleads: %q is not a catalog metric", m)
		}
		switch f.Aggregation {
		case catalog.Sum:
			need[m] = true
		case catalog.Ratio, catalog.NonAdditive:
			need[f.Numerator], need[f.Denominator] = true, true
		}
	}
	for _, m := range metricFields {
		if need[m.name] {
			if s, _ := catalog.BreakdownSetByKey(p.set); p.set != "" && !s.HasMetric(m.name) {
				// The normalizer refuses these: Google would answer
				// PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE.
				return nil, fmt.Errorf("googleads: %s is not reported per %s", m.name, p.set)
			}
			p.metrics = append(p.metrics, m.field)
		}
	}

	for _, f := range q.Filters {
		if !f.Metric {
			p.where = append(p.where, pushDown(f)...)
		}
	}
	return p, nil
}

// selects are the fields of the query, attributes first.
func (p *plan) selects() []string {
	var s []string
	if p.resource == "customer" {
		s = append(s, "customer.id")
	}
	if p.level >= levelCampaign {
		s = append(s, "campaign.id", "campaign.name", "campaign.advertising_channel_type", "campaign.status")
	}
	if p.level >= levelAdGroup {
		s = append(s, "ad_group.id", "ad_group.name")
	}
	if p.level >= levelAd {
		s = append(s, "ad_group_ad.ad.id", "ad_group_ad.ad.name")
	}
	if p.country {
		s = append(s, "user_location_view.country_criterion_id")
	}
	if p.set != "" {
		s = append(s, setFields[p.set])
	}
	if p.dateSegment != "" {
		s = append(s, p.dateSegment)
	}
	if p.device {
		s = append(s, "segments.device")
	}
	if p.network {
		s = append(s, "segments.ad_network_type")
	}
	return append(s, p.metrics...)
}

// gaql is the query's text: one line, as Google's query validator takes it.
func (p *plan) gaql() string {
	where := append([]string{fmt.Sprintf("segments.date BETWEEN '%s' AND '%s'",
		p.start.Format(time.DateOnly), p.end.Format(time.DateOnly))}, p.where...)
	return "SELECT " + strings.Join(p.selects(), ", ") + " FROM " + p.resource + " WHERE " + strings.Join(where, " AND ")
}

// Filter push-down. The staged warehouse re-applies every filter, so pushing
// one into WHERE only saves transfer; a condition is pushed only when it keeps
// every row the case-insensitive filter keeps (it may keep more).

// idFields are the GAQL fields of the ID dimensions.
var idFields = map[string]string{"campaign_id": "campaign.id", "adset_id": "ad_group.id", "ad_id": "ad_group_ad.ad.id"}

// nameFields are the GAQL fields of the name dimensions.
var nameFields = map[string]string{"campaign_name": "campaign.name", "adset_name": "ad_group.name", "ad_name": "ad_group_ad.ad.name"}

// enumFields: the GAQL field of an enum dimension and its values by our value.
var enumFields = map[string]struct {
	field  string
	values map[string]string
}{
	"campaign_objective": {"campaign.advertising_channel_type", invert(objectiveNames())},
	"campaign_status":    {"campaign.status", map[string]string{"active": "ENABLED", "paused": "PAUSED", "archived": "REMOVED"}},
	"device":             {"segments.device", invert(deviceNames)},
	"publisher_platform": {"segments.ad_network_type", invert(networkNames)},
	"age":                {"ad_group_criterion.age_range.type", invert(ageNames)},
	"gender":             {"ad_group_criterion.gender.type", invert(genderNames)},
}

func objectiveNames() map[string]string {
	m := map[string]string{}
	for _, o := range []string{"SEARCH", "DISPLAY", "SHOPPING", "HOTEL", "VIDEO", "MULTI_CHANNEL", "LOCAL", "SMART",
		"PERFORMANCE_MAX", "LOCAL_SERVICES", "TRAVEL", "DEMAND_GEN"} {
		m[o] = o
	}
	return m
}

// invert maps our lower-case values back to the enum, leaving out the empty one.
func invert(m map[string]string) map[string]string {
	out := map[string]string{}
	for enum, ours := range m {
		if ours != "" {
			out[strings.ToLower(ours)] = enum
		}
	}
	return out
}

// pushDown returns the GAQL conditions for a dimension filter (none when it
// cannot be pushed exactly).
func pushDown(f query.Filter) []string {
	values := make([]string, len(f.Values))
	for i, v := range f.Values {
		s, ok := v.(string)
		if !ok || s == "" {
			return nil
		}
		values[i] = s
	}
	positive := f.Operator == query.Equals || f.Operator == query.In
	negative := f.Operator == query.NotEquals || f.Operator == query.NotIn
	if field, ok := idFields[f.Field]; ok && (positive || negative) {
		for _, v := range values {
			if digits(v) != v || len(v) > 19 {
				return nil
			}
		}
		return []string{field + listCondition(negative, values, false)}
	}
	if e, ok := enumFields[f.Field]; ok && (positive || negative) {
		enums := make([]string, len(values))
		for i, v := range values {
			if enums[i], ok = e.values[strings.ToLower(v)]; !ok || !isASCII(v) {
				return nil
			}
		}
		return []string{e.field + listCondition(negative, enums, true)}
	}
	field, ok := nameFields[f.Field]
	if !ok {
		return nil
	}
	switch f.Operator {
	case query.Equals, query.Contains, query.StartsWith:
		pre, post := "", ""
		if f.Operator == query.Contains {
			pre, post = "%", "%"
		}
		if f.Operator == query.StartsWith {
			post = "%"
		}
		if pat, ok := likePattern(values[0]); ok {
			return []string{field + " LIKE '" + pre + pat + post + "'"}
		}
	case query.In:
		if len(values) == 1 { // GAQL has no OR: several values stay with the warehouse
			if pat, ok := likePattern(values[0]); ok {
				return []string{field + " LIKE '" + pat + "'"}
			}
		}
	}
	return nil
}

func listCondition(negative bool, values []string, quote bool) string {
	vs := slices.Clone(values)
	if quote {
		for i, v := range vs {
			vs[i] = "'" + v + "'"
		}
	}
	switch {
	case len(vs) == 1 && negative:
		return " != " + vs[0]
	case len(vs) == 1:
		return " = " + vs[0]
	case negative:
		return " NOT IN (" + strings.Join(vs, ", ") + ")"
	}
	return " IN (" + strings.Join(vs, ", ") + ")"
}

// likePattern writes v as a GAQL LIKE pattern matching it literally (GAQL's
// LIKE is case-insensitive), for positive filters only (EQUALS, CONTAINS,
// STARTS_WITH, a one-value IN): a pattern may keep more rows than the filter,
// never fewer. Negative name filters are not pushed, since Google's case
// folding may be broader than the warehouse's lower() (a NOT LIKE could then
// drop rows the filter keeps). Only printable ASCII without quotes or
// backslashes is pushed. Under the Unicode lower-casing the filter uses, two
// non-ASCII letters become ASCII ones (İ → i, the Kelvin sign K → k), so an i
// or a k in the value becomes _ (any one character) in the pattern.
func likePattern(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < 0x20 || c > 0x7e || c == '\'' || c == '"' || c == '\\':
			return "", false
		case c == 'i' || c == 'I' || c == 'k' || c == 'K':
			b.WriteByte('_')
		case c == '%' || c == '_' || c == '[' || c == ']':
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7e {
			return false
		}
	}
	return true
}

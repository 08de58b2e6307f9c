package googleads

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// levelResources are the resources rows are read from at each object level
// of the plan (GAQL's FROM): a resource's rows are per object of its level.
var levelResources = map[catalog.Level]string{
	catalog.LevelAccount: "customer", catalog.LevelCampaign: "campaign",
	catalog.LevelAdSet: "ad_group", catalog.LevelAd: "ad_group_ad",
}

// locationSet is the breakdown set of Google's countries: user_location_view
// rows, per ad group at the finest, segmented by device and ad network type
// (https://developers.google.com/google-ads/api/fields/latest/user_location_view;
// catalog's breakdown sets).
const locationSet = "location"

// setResources are the resources the breakdown sets kept per campaign are
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

// grainSegments are the date segments of each grain a plan may ask: Google
// has ISO weeks (segments.week, the Monday), so weekly rows are fetched as
// such; total rows have no date segment.
var grainSegments = map[fit.Grain]string{fit.Daily: "segments.date", fit.Weekly: "segments.week",
	fit.Monthly: "segments.month", fit.Total: ""}

// plan is the GAQL query one fetch sends to each account.
type plan struct {
	resource string
	level    catalog.Level
	// Breakdowns: user_location_view (country), segments.device,
	// segments.ad_network_type (publisher_platform).
	country, device, network bool
	// set is the key of the breakdown set kept per campaign the plan reads
	// ("age", "gender", "conversion_action"); "" for delivery and location.
	set string
	// key is the breakdown set of the plan's facts (ads.Fact.Breakdown):
	// "" for delivery.
	key string
	// dateSegment is segments.date, segments.week, segments.month or "" (total).
	dateSegment string
	start, end  time.Time
	metrics     []string // GAQL metric fields
	where       []string // conditions after the date range
}

// compile maps the live source's plan onto one GAQL query. A shape Google
// cannot report is a *query.Error saying what to ask instead.
func compile(lp *live.Plan) (*plan, error) {
	p := &plan{start: lp.Start, end: lp.End, level: lp.Level,
		country: lp.Uses("country"), device: lp.Uses("device"), network: lp.Uses("publisher_platform")}
	if p.country && (lp.Set.Key != locationSet || p.level >= catalog.LevelAd) {
		// The normalizer refuses these (catalog: Google's countries are
		// the location set, kept per ad group).
		return nil, fmt.Errorf("googleads: countries are read from user_location_view per ad group at the finest, as the location set (plan: set %s, level %d)", lp.Set.Key, p.level)
	}
	if lp.Set.Key != catalog.Delivery {
		p.key = lp.Set.Key
	}
	if err := p.readSet(lp); err != nil {
		return nil, err
	}
	switch {
	case p.set != "":
		p.resource = setResources[p.set]
	case p.country:
		p.resource = "user_location_view"
	default:
		var ok bool
		if p.resource, ok = levelResources[p.level]; !ok {
			return nil, fmt.Errorf("googleads: no resource has rows per object of level %d", p.level)
		}
	}
	var ok bool
	if p.dateSegment, ok = grainSegments[lp.Grain]; !ok {
		return nil, fmt.Errorf("googleads: no date segment for grain %q", lp.Grain)
	}
	p.metrics = selectedMetrics(lp.Measures, p.set)
	for _, f := range lp.Filters {
		p.where = append(p.where, pushDown(f)...)
	}
	return p, nil
}

// readSet sets the breakdown set kept per campaign the plan reads, if any.
func (p *plan) readSet(lp *live.Plan) error {
	if lp.Set.Key == catalog.Delivery || lp.Set.Key == locationSet {
		return nil
	}
	if _, known := setResources[lp.Set.Key]; !known {
		return fmt.Errorf("googleads: breakdown set %q is not one Google Ads reports", lp.Set.Key)
	}
	if p.level > catalog.LevelCampaign || p.country || p.device || p.network {
		// The normalizer refuses these; a plan never reads two sets.
		return fmt.Errorf("googleads: breakdown set %q is stored per campaign, without other breakdowns", lp.Set.Key)
	}
	p.set, p.level = lp.Set.Key, catalog.LevelCampaign
	return nil
}

// selectedMetrics are the GAQL fields of the plan's measures Google reports,
// in the catalog's order, with metrics.impressions always so that rows are
// those with delivery — except for conversion actions, a segment that allows
// only conversion metrics (Google answers
// PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE otherwise), where
// metrics.conversions is always selected instead.
func selectedMetrics(measures []string, set string) []string {
	always := "impressions"
	if set == "conversion_action" {
		always = "conversions"
	}
	var out []string
	for _, f := range catalog.Measures() {
		if mf, ok := metricFields[f.Name]; ok && (f.Name == always || slices.Contains(measures, f.Name)) {
			out = append(out, mf.field)
		}
	}
	return out
}

// selects are the fields of the query, attributes first.
func (p *plan) selects() []string {
	var s []string
	if p.resource == "customer" {
		s = append(s, "customer.id")
	}
	if p.level >= catalog.LevelCampaign {
		s = append(s, "campaign.id", "campaign.name", "campaign.advertising_channel_type", "campaign.status")
	}
	if p.level >= catalog.LevelAdSet {
		s = append(s, "ad_group.id", "ad_group.name")
	}
	if p.level >= catalog.LevelAd {
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

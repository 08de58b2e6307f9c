package meta

import (
	"slices"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// insightsMetric is how the Insights report gives one stored catalog metric
// (Marketing API Insights reference, developers.facebook.com/docs/marketing-api/insights/parameters;
// Ads Action Stats for the lists of actions).
type insightsMetric struct {
	// Metric is the catalog metric's name.
	Metric string
	// Field is the Insights field requested: a number ("spend",
	// "inline_link_clicks", "reach") or a list of actions ("actions",
	// "action_values", "video_p100_watched_actions").
	Field string
	// Action is, for a list of actions, the action type whose value is the
	// metric ("video_view": 3-second plays).
	Action string
	// Conversions: for a list of actions, the metric sums the action types
	// counted as conversions (Options.ActionTypes, purchases by default)
	// rather than one fixed Action.
	Conversions bool
}

// isActions says whether the metric is read from a list of actions rather
// than a number field.
func (m insightsMetric) isActions() bool { return m.Action != "" || m.Conversions }

// insightsMetrics are the stored metrics Meta reports, each once. Their order
// is the order fields are requested in (Meta does not care; a fixed order
// keeps requests comparable): the metrics every platform reports, then
// Meta's own, then reach. docs/fields.md's "Meta Ads API" column says the
// same (TestFieldsDocMetaColumn).
var insightsMetrics = []insightsMetric{
	{Metric: "spend", Field: "spend"},
	{Metric: "impressions", Field: "impressions"},
	{Metric: "clicks", Field: "clicks"},
	{Metric: "conversions", Field: "actions", Conversions: true},
	{Metric: "conversion_value", Field: "action_values", Conversions: true},
	{Metric: "video_views", Field: "actions", Action: "video_view"},
	{Metric: "video_views_p100", Field: "video_p100_watched_actions", Action: "video_view"},
	{Metric: "link_clicks", Field: "inline_link_clicks"},
	{Metric: "reach", Field: "reach"},
}

// insightsMetricOf is how Insights gives metric name; false when Meta does
// not report it (or it is not stored: ratios are computed from their parts).
func insightsMetricOf(name string) (insightsMetric, bool) {
	for _, m := range insightsMetrics {
		if m.Metric == name {
			return m, true
		}
	}
	return insightsMetric{}, false
}

// mustInsightsField is the Insights field of a metric the table holds.
func mustInsightsField(name string) string {
	m, ok := insightsMetricOf(name)
	if !ok {
		panic("meta: no Insights field for " + name)
	}
	return m.Field
}

// reachField, conversionsField and conversionValueField are the Insights
// fields of reach and of the conversion metrics.
var (
	reachField           = mustInsightsField("reach")
	conversionsField     = mustInsightsField("conversions")
	conversionValueField = mustInsightsField("conversion_value")
)

// measureMetrics are the table's entries by catalog measure (nil: a measure
// Meta does not report), for reading every measure of every row.
var measureMetrics = func() [catalog.NumMeasures]*insightsMetric {
	var out [catalog.NumMeasures]*insightsMetric
	for m, f := range catalog.Measures() {
		if im, ok := insightsMetricOf(f.Name); ok {
			out[m] = &im
		}
	}
	return out
}()

// fieldsOf are the Insights fields of measures (stored metric names), in the
// table's order, each once.
func fieldsOf(measures []string) []string {
	var out []string
	for _, m := range insightsMetrics {
		if slices.Contains(measures, m.Metric) && !slices.Contains(out, m.Field) {
			out = append(out, m.Field)
		}
	}
	return out
}

// metricFieldDoc is how docs/fields.md writes the Insights field of metric
// name (registry.Plugin.MetricField).
func metricFieldDoc(name string) string {
	m, ok := insightsMetricOf(name)
	switch {
	case !ok:
		return ""
	case m.Conversions:
		return "`" + m.Field + "` of the configured conversion action types"
	case m.Action != "":
		return "`" + m.Field + "` action `" + m.Action + "`"
	}
	return "`" + m.Field + "`"
}

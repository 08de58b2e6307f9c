package googleads

import "strings"

// gaqlValue is how a GoogleAdsRow writes a metric's value (REST JSON).
type gaqlValue int

const (
	// int64Value is an int64, written as a JSON string: a count, or money
	// already in micros (metrics.cost_micros).
	int64Value gaqlValue = iota
	// doubleValue is a double, written as a JSON number: fractional
	// conversions, or money in currency units (metrics.conversions_value),
	// read exactly into micros.
	doubleValue
)

// metricField is how the Google Ads API gives one catalog metric.
type metricField struct {
	field string // the GAQL field, e.g. metrics.cost_micros
	value gaqlValue
}

// metricFields are the GAQL metrics behind the catalog's stored metrics, by
// catalog metric name (docs/googleads.md, "What each query fetches"; the
// field reference: https://developers.google.com/google-ads/api/fields/v25/metrics).
// A stored metric without an entry is not reported by Google: its facts hold
// ads.NotReported. link_clicks has no GAQL equivalent; video_views_p100 has
// only metrics.video_quartile_p100_rate, a share of impressions, from which
// no exact count can be made; reach and frequency are not reported either.
// TestMetricFieldsComplete holds this table to the catalog's Platforms.
var metricFields = map[string]metricField{
	"spend":            {"metrics.cost_micros", int64Value},
	"impressions":      {"metrics.impressions", int64Value},
	"clicks":           {"metrics.clicks", int64Value},
	"conversions":      {"metrics.conversions", doubleValue},
	"conversion_value": {"metrics.conversions_value", doubleValue},
	// The API renamed metrics.video_views to video_trueview_views in v22.
	"video_views": {"metrics.video_trueview_views", int64Value},
}

// reported says whether Google reports the stored metric name.
func reported(name string) bool {
	_, ok := metricFields[name]
	return ok
}

// jsonKey is a GAQL field name as the REST API writes it in a row: lowerCamel
// without the resource (metrics.cost_micros → costMicros).
func jsonKey(field string) string {
	_, name, _ := strings.Cut(field, ".")
	words := strings.Split(name, "_")
	for i := 1; i < len(words); i++ {
		if words[i] != "" {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
	}
	return strings.Join(words, "")
}

// metricFieldDoc is how docs/fields.md writes the GAQL field of metric name
// (registry.Plugin.MetricField).
func metricFieldDoc(name string) string {
	if mf, ok := metricFields[name]; ok {
		return "`" + mf.field + "`"
	}
	return ""
}

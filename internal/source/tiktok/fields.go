package tiktok

import (
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// metricFields are how the integrated report (/report/integrated/get/) spells
// each catalog metric TikTok reports: catalog metric name → report metric.
// TikTok writes every value as a string — money as a decimal in the
// advertiser's currency, counts as whole numbers — read as the catalog stores
// the metric (catalog.Storage.Kind). A stored metric without an entry is one
// TikTok does not report (ads.NotReported: link_clicks). docs/tiktok.md
// "Field mapping" has the table with its sources and the choices made.
var metricFields = map[string]string{
	"spend":            "spend",
	"impressions":      "impressions",
	"clicks":           "clicks",
	"conversions":      "conversion",
	"conversion_value": "total_complete_payment_rate", // TikTok's Total Complete Payment value, despite its name
	"video_views":      "video_play_actions",
	"video_views_p100": "video_views_p100",
	"reach":            "reach",
}

// measureFields are the report metric of each stored measure, by
// catalog.Measure ("" where TikTok reports none).
var measureFields = func() (out [catalog.NumMeasures]string) {
	for m, f := range catalog.Measures() {
		out[m] = metricFields[f.Name]
	}
	return out
}()

// reachField is the report metric of reach.
var reachField = metricFields["reach"]

// metricFieldDoc is how docs/fields.md writes the report metric of metric
// name (registry.Plugin.MetricField).
func metricFieldDoc(name string) string {
	if f, ok := metricFields[name]; ok {
		return "`" + f + "`"
	}
	return ""
}

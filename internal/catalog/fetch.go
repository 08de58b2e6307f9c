package catalog

import "strings"

// How each platform reports a metric, declared on the metric (Field.Meta,
// Field.Google, Field.Exports). A platform missing from a metric's Platforms does
// not report it: its facts hold NULL (ads.NotReported), and the metric declares no
// way to fetch it there. TestEveryMetricMapped holds both directions.

// MetaFetch is how the Meta Marketing API's Insights report gives a metric.
type MetaFetch struct {
	// Field is the Insights field requested: a number ("spend",
	// "inline_link_clicks", "reach") or a list of actions ("actions",
	// "action_values").
	Field string
	// Action is, for a list of actions, the action type whose value is the metric
	// ("video_view": 3-second plays).
	Action string
	// Conversions: for a list of actions, the metric sums the action types the
	// connector counts as conversions (its configured action types, purchases by
	// default), rather than one fixed Action.
	Conversions bool
}

// IsActions reports whether the metric comes from a list of actions rather than a
// number field.
func (m MetaFetch) IsActions() bool { return m.Action != "" || m.Conversions }

// GoogleValue is how a GAQL metric's value is written in a GoogleAdsRow.
type GoogleValue string

const (
	// GoogleInt64 is an int64 (a JSON string): a count, or money already in micros
	// (metrics.cost_micros).
	GoogleInt64 GoogleValue = "int64"
	// GoogleDouble is a double (a JSON number): fractional conversions, or money in
	// currency units (metrics.conversions_value), read exactly into micros.
	GoogleDouble GoogleValue = "double"
)

// GoogleFetch is how the Google Ads API (GAQL) gives a metric.
type GoogleFetch struct {
	Field string // the GAQL field, e.g. metrics.cost_micros
	Value GoogleValue
}

// TikTokFetch is how the TikTok API for Business's integrated report
// (/report/integrated/get/) gives a metric: a metric name of the report, whose
// value TikTok writes as a string (money as a decimal in the account's currency,
// counts as whole numbers). docs/tiktok.md has the table and its sources.
type TikTokFetch struct {
	Field string // the report metric, e.g. "spend", "video_play_actions"
}

// Export platforms: the report exports the importer reads.
const (
	ExportMeta   = MetaAds   // Meta Ads Manager's "Export table data"
	ExportGoogle = GoogleAds // a Google Ads report download
	ExportTikTok = TikTokAds // a TikTok Ads Manager custom report's export
)

// Export is how a platform's report export titles a metric's column.
type Export struct {
	// EN and ES are the column titles in English and Spanish, folded: lower case,
	// no accents, single spaces, without a currency suffix such as " (USD)".
	EN, ES []string
	// Whole says the export writes whole numbers even if the metric is stored as a
	// double (Meta's purchases), which helps tell 1,234 (thousands) from 1,234 (a
	// decimal comma).
	Whole bool
	// Name is what messages call the column ("purchases"); empty: the metric's
	// label in lower case.
	Name string
}

// ColumnName is what the importer's messages call the column.
func (e Export) ColumnName(f Field) string {
	if e.Name != "" {
		return e.Name
	}
	return strings.ToLower(f.Label)
}

// Measures returns the Sum metrics in Measure order (the order of a fact row's
// values).
func Measures() []Field {
	out := make([]Field, NumMeasures)
	for m := range NumMeasures {
		out[m] = MeasureField(m)
	}
	return out
}

package catalog

import "strings"

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

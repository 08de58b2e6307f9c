// Package catalog is the single source of truth for the fields adsmcp understands:
// every dimension and metric, its type, how it aggregates, its unit, the platforms
// that report it and the names AI clients use for it. Validation, SQL generation,
// roll-ups and the list_fields tool all read this table, so that a field means the
// same thing everywhere.
package catalog

import (
	"sort"
)

// Kind tells whether a field groups rows (dimension) or is measured (metric).
type Kind string

const (
	Dimension Kind = "dimension"
	Metric    Kind = "metric"
)

// Type is the value type of a field, which decides the filter operators it accepts.
type Type string

const (
	String Type = "string"
	Number Type = "number"
)

// Aggregation says how a metric combines across days and objects. It is what keeps
// numbers right: ratios are recomputed from summed parts, non-additive metrics are
// never summed.
type Aggregation string

const (
	// None is the aggregation of dimensions.
	None Aggregation = ""
	// Sum: the metric adds up over days and objects (spend, clicks).
	Sum Aggregation = "sum"
	// Ratio: numerator / denominator × scale, both parts summed first (ctr, cpc).
	Ratio Aggregation = "ratio"
	// NonAdditive: counts distinct people (reach) or derives from such a count
	// (frequency); it can only be computed at the grain it is asked for.
	NonAdditive Aggregation = "non_additive"
)

// Unit is what a metric's number measures; money is in the account's currency.
type Unit string

const (
	UnitNone    Unit = ""
	Money       Unit = "money"
	Count       Unit = "count"
	Percent     Unit = "percent"
	Multiple    Unit = "ratio" // a unitless multiple such as ROAS or frequency
	UnitText    Unit = "text"
	UnitID      Unit = "id"
	UnitISOCode Unit = "code"
)

// The platforms (MetaAds, AllPlatforms…) are in platforms.go.

// Level is the object level a dimension belongs to; it decides which tables a query
// joins and at which level non-additive metrics such as reach can be answered.
type Level int

const (
	LevelAccount Level = iota
	LevelCampaign
	LevelAdSet
	LevelAd
	// LevelBreakdown marks dimensions that split delivery inside an ad (country, device…).
	LevelBreakdown
)

// Field describes one dimension or metric.
type Field struct {
	Name        string      `json:"name"`
	Label       string      `json:"label"`
	Description string      `json:"description"`
	Kind        Kind        `json:"kind"`
	Type        Type        `json:"type"`
	Aggregation Aggregation `json:"aggregation,omitempty"`
	// Numerator, Denominator and Scale define a ratio: Σnumerator / Σdenominator × Scale.
	Numerator   string   `json:"numerator,omitempty"`
	Denominator string   `json:"denominator,omitempty"`
	Scale       float64  `json:"scale,omitempty"`
	Unit        Unit     `json:"unit,omitempty"`
	Platforms   []string `json:"platforms"`
	Synonyms    []string `json:"synonyms,omitempty"`
	Level       Level    `json:"-"`
	// Describes marks a dimension that says how a row's numbers are measured —
	// the currency money is in, the window conversions are counted under — not
	// what the row breaks down: one value per account, asked or added by the
	// query's normalization (the only dimensions it adds). A row is not
	// attributed by it: fit's step 1 does not judge it and it takes no place
	// in a top N (fit.Column.Unit, docs/fit.md step 1).
	Describes bool `json:"-"`

	// Storage is where a Sum metric is stored in the facts table; nil for every
	// other field. SQL, loaders and producers read it (docs/contract.md §3).
	Storage *Storage `json:"-"`
	// Distinct, on a non-additive metric that counts distinct people (reach), is
	// its column in table reach, stored per object and grain: it is read at the
	// grain asked for, never summed. A non-additive metric without it derives
	// from one that has it (frequency = impressions / reach).
	Distinct string `json:"-"`
	// Exports says how each platform's report export titles the metric
	// (keyed by ExportMeta, ExportGoogle, ExportTikTok); absent where the
	// platform does not report it. How each platform's API spells it is
	// its connector's own table (internal/source/<platform>/fields.go): the
	// catalog keeps what a metric is.
	Exports map[string]Export `json:"-"`
}

// IsMetric reports whether the field is a metric.
func (f Field) IsMetric() bool { return f.Kind == Metric }

// HasPlatform reports whether the platform reports this field.
func (f Field) HasPlatform(p string) bool {
	for _, q := range f.Platforms {
		if q == p {
			return true
		}
	}
	return false
}

// Lookup returns the field with this exact canonical name.
func Lookup(name string) (Field, bool) {
	i, ok := byName[name]
	if !ok {
		return Field{}, false
	}
	return fields[i], true
}

// MustLookup is Lookup for names the code itself knows to exist.
func MustLookup(name string) Field {
	f, ok := Lookup(name)
	if !ok {
		panic("catalog: unknown field " + name)
	}
	return f
}

// Fields returns every field, dimensions first, in catalog order. The slice is a copy.
func Fields() []Field {
	out := make([]Field, len(fields))
	copy(out, fields)
	return out
}

// Names returns the canonical names of the fields of one kind, sorted.
func Names(kind Kind) []string {
	var out []string
	for _, f := range fields {
		if f.Kind == kind {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ForPlatform returns the fields reported by a platform ("" = all fields).
func ForPlatform(platform string) []Field {
	var out []Field
	for _, f := range fields {
		if platform == "" || f.HasPlatform(platform) {
			out = append(out, f)
		}
	}
	return out
}

var byName = func() map[string]int {
	m := make(map[string]int, len(fields))
	for i, f := range fields {
		m[f.Name] = i
	}
	return m
}()

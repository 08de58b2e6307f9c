package catalog

import "fmt"

// Measure is a stored additive measure: the index of its value in a fact row
// (ads.Fact.Measures). Every Sum metric has exactly one; the catalog entry that
// names it (Field.Storage) is the only place that says where it is stored and how.
type Measure int

// The stored measures, in the order of the facts table's measure columns. A new
// additive metric adds its constant here (before NumMeasures) and a Sum entry in
// fields.go naming it.
const (
	Spend Measure = iota
	Impressions
	Clicks
	LinkClicks
	Conversions
	ConversionValue
	VideoViews
	VideoViewsP100
	// NumMeasures is how many measures a fact row holds.
	NumMeasures
)

// ColumnKind is how a stored measure is held in the facts table, which decides its
// SQL type and how producers and loaders write it.
type ColumnKind string

const (
	// Micros is money as integer millionths of the account's currency (BIGINT):
	// sums are exact, and one division turns them into currency units.
	Micros ColumnKind = "micros"
	// Integer is a whole count (BIGINT).
	Integer ColumnKind = "integer"
	// Double is a double-precision number (Google's conversions are fractional).
	Double ColumnKind = "double"
)

// Storage is where a Sum metric lives in the facts table.
type Storage struct {
	Measure Measure
	Column  string // the facts table's column
	Kind    ColumnKind
}

// FactColumn is one measure column of the facts table, as a schema or a loader
// needs it.
type FactColumn struct {
	Measure Measure
	Metric  string // the catalog metric stored in it
	Name    string
	Kind    ColumnKind
	// Nullable: some platform does not report the metric, and its facts hold NULL
	// there (ads.NotReported in a fact row).
	Nullable bool
}

// FactColumns are the facts table's measure columns in Measure order: what loaders
// write after the dimension columns, and what a schema migration adds when a
// facts table lacks one.
func FactColumns() []FactColumn {
	out := make([]FactColumn, len(factColumns))
	copy(out, factColumns)
	return out
}

// MeasureField is the Sum metric stored as measure m.
func MeasureField(m Measure) Field { return fields[measureField[m]] }

// factColumns and measureField are derived from the fields once; building them
// checks that every Sum metric is stored and every measure has one metric, so a
// catalog that is not is refused at startup, not at query time.
var factColumns, measureField = storageTables()

func storageTables() ([]FactColumn, [NumMeasures]int) {
	cols := make([]FactColumn, NumMeasures)
	var idx [NumMeasures]int
	seen := make([]bool, NumMeasures)
	for i, f := range fields {
		if err := f.checkStorage(); err != nil {
			panic("catalog: " + err.Error())
		}
		if f.Storage == nil {
			continue
		}
		m := f.Storage.Measure
		if seen[m] {
			panic(fmt.Sprintf("catalog: %s: measure %d is stored by two metrics", f.Name, m))
		}
		seen[m], idx[m] = true, i
		cols[m] = FactColumn{Measure: m, Metric: f.Name, Name: f.Storage.Column, Kind: f.Storage.Kind,
			Nullable: len(f.Platforms) < len(AllPlatforms)}
	}
	for m, ok := range seen {
		if !ok {
			panic(fmt.Sprintf("catalog: measure %d is stored by no metric", m))
		}
	}
	return cols, idx
}

// checkStorage says what is wrong with a field's storage declaration: a Sum metric
// must be stored (its column summed), anything else must not.
func (f Field) checkStorage() error {
	s := f.Storage
	switch {
	case f.Aggregation == Sum && s == nil:
		return fmt.Errorf("%s: a Sum metric without storage", f.Name)
	case f.Aggregation != Sum && s != nil:
		return fmt.Errorf("%s: only Sum metrics are stored in the facts table", f.Name)
	case s == nil:
		return nil
	case s.Measure < 0 || s.Measure >= NumMeasures:
		return fmt.Errorf("%s: measure %d out of range", f.Name, s.Measure)
	case s.Column == "":
		return fmt.Errorf("%s: no column", f.Name)
	case s.Kind != Micros && s.Kind != Integer && s.Kind != Double:
		return fmt.Errorf("%s: unknown column kind %q", f.Name, s.Kind)
	case (s.Kind == Micros) != (f.Unit == Money):
		return fmt.Errorf("%s: money is stored in micros, and only money", f.Name)
	}
	return nil
}

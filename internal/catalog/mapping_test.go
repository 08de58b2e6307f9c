package catalog

import (
	"strings"
	"testing"
)

// exportPlatforms are the platforms whose report exports titled in two
// languages the importer reads: each metric says how the export titles it,
// or lists neither platform.
var exportPlatforms = []string{MetaAds, GoogleAds}

// TestEveryMetricMapped: every metric is stored and titled in each
// platform's export exactly where the catalog says the platform reports it
// (Platforms); a platform it leaves out is the explicit "not reported"
// (stored NULL). Derived metrics (ratios, frequency) are computed, never
// stored. How each API gives a metric is its connector's table, checked
// against Platforms by internal/source/plugins
// (TestEveryLiveSourceMapsItsPlatform).
func TestEveryMetricMapped(t *testing.T) {
	for _, f := range Fields() {
		if !f.IsMetric() {
			if f.Storage != nil || len(f.Exports) > 0 || f.Distinct != "" {
				t.Errorf("%s: a dimension with metric storage or fetching", f.Name)
			}
			continue
		}
		fetched := f.Aggregation == Sum || f.Distinct != ""
		if err := f.checkStorage(); err != nil {
			t.Error(err)
		}
		if f.Aggregation == NonAdditive && f.Distinct == "" {
			if d, ok := Lookup(f.Denominator); !ok || d.Distinct == "" {
				t.Errorf("%s: a non-additive metric neither stored per grain (Distinct) nor derived from one", f.Name)
			}
		}
		for _, p := range exportPlatforms {
			reported := fetched && f.HasPlatform(p)
			e, exported := f.Exports[p]
			switch {
			case exported != reported:
				t.Errorf("%s: %s export headers declared %v, but reported %v", f.Name, p, exported, reported)
			case exported && (len(e.EN) == 0 || len(e.ES) == 0):
				t.Errorf("%s: %s export needs English and Spanish headers", f.Name, p)
			}
			for _, h := range append(append([]string{}, e.EN...), e.ES...) {
				if h != strings.ToLower(strings.Join(strings.Fields(h), " ")) || strings.ContainsAny(h, "áéíóúñ") {
					t.Errorf("%s: %s export header %q is not folded (lower case, no accents, single spaces)", f.Name, p, h)
				}
			}
		}
	}
}

// TestFactColumns: one column per measure, in Measure order, nullable exactly
// where a platform does not report the metric (link_clicks).
func TestFactColumns(t *testing.T) {
	cols := FactColumns()
	if len(cols) != int(NumMeasures) {
		t.Fatalf("%d fact columns for %d measures", len(cols), NumMeasures)
	}
	names := map[string]bool{}
	for i, c := range cols {
		f := MustLookup(c.Metric)
		if c.Measure != Measure(i) || f.Storage.Measure != c.Measure || MeasureField(c.Measure).Name != c.Metric {
			t.Errorf("column %d %+v is not measure %d", i, c, i)
		}
		if names[c.Name] {
			t.Errorf("column %s twice", c.Name)
		}
		names[c.Name] = true
		if (c.Metric == "link_clicks" || c.Metric == "spend") && c.Nullable != (c.Metric == "link_clicks") {
			t.Errorf("%s: nullable %v", c.Metric, c.Nullable)
		}
	}
	// The columns the warehouses' first layout has; a new metric adds its own.
	want := map[string]ColumnKind{"spend_micros": Micros, "impressions": Integer, "clicks": Integer, "link_clicks": Integer,
		"conversions": Double, "conversion_value_micros": Micros, "video_views": Integer}
	for _, c := range cols {
		if k, ok := want[c.Name]; ok && k != c.Kind {
			t.Errorf("%s: kind %s, the warehouses store %s", c.Name, c.Kind, want[c.Name])
		}
	}
}

// TestStorageChecked: a Sum metric without storage (it would compile to no
// SQL), or stored in a way the loaders cannot write, is refused when the
// catalog is built (storageTables panics at startup), not at query time.
func TestStorageChecked(t *testing.T) {
	spend := MustLookup("spend")
	for name, broken := range map[string]func(*Field){
		"no storage":        func(f *Field) { f.Storage = nil },
		"no column":         func(f *Field) { f.Storage = &Storage{Measure: Spend, Kind: Micros} },
		"money not micros":  func(f *Field) { f.Storage = &Storage{Measure: Spend, Column: "x", Kind: Integer} },
		"measure too large": func(f *Field) { f.Storage = &Storage{Measure: NumMeasures, Column: "x", Kind: Micros} },
		"unknown kind":      func(f *Field) { f.Storage = &Storage{Measure: Spend, Column: "x", Kind: "text"} },
		"stored ratio":      func(f *Field) { *f = MustLookup("ctr"); f.Storage = spend.Storage },
	} {
		f := spend
		broken(&f)
		if f.checkStorage() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := spend.checkStorage(); err != nil {
		t.Errorf("spend: %v", err)
	}
}

package catalog

import (
	"strings"
	"testing"
)

// connectorPlatforms are the platforms with an API connector and a report
// export: each metric says how both give it, or lists neither platform.
var connectorPlatforms = []string{MetaAds, GoogleAds}

// TestEveryMetricMapped: every metric is stored, fetched from each connector's
// API and titled in each platform's export exactly where the catalog says the
// platform reports it (Platforms); a platform it leaves out is the explicit "not
// reported" (stored NULL), and then nothing may claim to fetch it there. Derived
// metrics (ratios, frequency) are computed, never stored or fetched.
func TestEveryMetricMapped(t *testing.T) {
	for _, f := range Fields() {
		if !f.IsMetric() {
			if f.Storage != nil || f.Meta != nil || f.Google != nil || f.TikTok != nil || len(f.Exports) > 0 || f.Distinct != "" {
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
		for _, p := range connectorPlatforms {
			reported := fetched && f.HasPlatform(p)
			meta, google := f.Meta != nil, f.Google != nil
			e, exported := f.Exports[p]
			switch {
			case p == MetaAds && meta != reported:
				t.Errorf("%s: Meta fetch declared %v, but reported on Meta %v: declare Meta (MetaFetch) or drop %s from Platforms", f.Name, meta, reported, p)
			case p == GoogleAds && google != reported:
				t.Errorf("%s: GAQL field declared %v, but reported on Google %v: declare Google (GoogleFetch) or drop %s from Platforms", f.Name, google, reported, p)
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
		// TikTok has a connector but no report export the importer reads.
		if reported := fetched && f.HasPlatform(TikTokAds); (f.TikTok != nil) != reported {
			t.Errorf("%s: TikTok report metric declared %v, but reported on TikTok %v: declare TikTok (TikTokFetch) or drop %s from Platforms", f.Name, f.TikTok != nil, reported, TikTokAds)
		}
		if tf := f.TikTok; tf != nil && (tf.Field == "" || strings.ContainsAny(tf.Field, " ,[]\"")) {
			t.Errorf("%s: TikTok fetch %+v: one report metric name", f.Name, *tf)
		}
		if m := f.Meta; m != nil {
			listField := m.Field == "actions" || m.Field == "action_values"
			if m.Field == "" || listField && !m.IsActions() || m.Action != "" && m.Conversions {
				t.Errorf("%s: Meta fetch %+v: a number field, or a list of actions with one action type or the conversion types", f.Name, *m)
			}
		}
		if g := f.Google; g != nil && (!strings.HasPrefix(g.Field, "metrics.") || g.Value != GoogleInt64 && g.Value != GoogleDouble) {
			t.Errorf("%s: GAQL fetch %+v", f.Name, *g)
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

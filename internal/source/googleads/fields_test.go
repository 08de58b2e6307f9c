package googleads

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// TestMetricFieldsComplete: every stored metric the catalog says Google
// reports (catalog.Measures, and reach) has a GAQL field; no other metric
// has one; every field is a GAQL metric written as an int64 or a double.
func TestMetricFieldsComplete(t *testing.T) {
	stored := append(catalog.Measures(), catalog.MustLookup("reach"))
	for _, f := range stored {
		if f.HasPlatform(Platform) != reported(f.Name) {
			t.Errorf("%s: reported on %s per the catalog: %v; GAQL field in metricFields: %v", f.Name, Platform, f.HasPlatform(Platform), reported(f.Name))
		}
	}
	for name, mf := range metricFields {
		if !slices.ContainsFunc(stored, func(f catalog.Field) bool { return f.Name == name }) {
			t.Errorf("metricFields has %q, which is not a stored catalog metric", name)
		}
		if !strings.HasPrefix(mf.field, "metrics.") || strings.ContainsAny(mf.field, " ,") ||
			mf.value != int64Value && mf.value != doubleValue {
			t.Errorf("%s: GAQL field %+v", name, mf)
		}
	}
}

// TestMetricFieldsDocumented: the "Google Ads API" column of the metrics
// table in docs/fields.md says, for every metric, the GAQL field of
// metricFields, or – where Google does not report it.
func TestMetricFieldsDocumented(t *testing.T) {
	file, err := os.Open("../../../docs/fields.md")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	col, seen := -1, map[string]bool{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if col < 0 {
			if len(cells) > 1 && cells[0] == "metric" {
				col = slices.Index(cells, "Google Ads API")
			}
			continue
		}
		if len(cells) <= col || !strings.HasPrefix(cells[0], "`") {
			if len(seen) > 0 {
				break // the end of the metrics table
			}
			continue
		}
		name := strings.Trim(cells[0], "`")
		f, ok := catalog.Lookup(name)
		if !ok || !f.IsMetric() {
			t.Errorf("docs/fields.md lists %q, not a catalog metric", name)
			continue
		}
		seen[name] = true
		want := "–"
		if mf, ok := metricFields[name]; ok {
			want = "`" + mf.field + "`"
		}
		if cells[col] != want {
			t.Errorf("docs/fields.md: %s on the Google Ads API is %s, metricFields says %s", name, cells[col], want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if col < 0 {
		t.Fatal("docs/fields.md has no metrics table with a Google Ads API column")
	}
	for _, f := range catalog.Fields() {
		if f.IsMetric() && !seen[f.Name] {
			t.Errorf("docs/fields.md's metrics table leaves out %s", f.Name)
		}
	}
}

package googleads

import (
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

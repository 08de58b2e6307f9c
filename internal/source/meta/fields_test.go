package meta

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// TestInsightsMetricsComplete: every stored catalog metric Meta reports (the
// measures and reach) has exactly one entry saying how Insights gives it, and
// no metric Meta does not report, nor any computed one, has an entry.
func TestInsightsMetricsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range insightsMetrics {
		f, ok := catalog.Lookup(m.Metric)
		switch {
		case !ok || !f.IsMetric():
			t.Errorf("%s: not a catalog metric", m.Metric)
		case f.Storage == nil && f.Distinct == "":
			t.Errorf("%s: not stored (computed from its parts), yet mapped to %s", m.Metric, m.Field)
		case !f.HasPlatform(catalog.MetaAds):
			t.Errorf("%s: Meta does not report it, yet mapped to %s", m.Metric, m.Field)
		case seen[m.Metric]:
			t.Errorf("%s: mapped twice", m.Metric)
		case m.Field == "" || m.Action != "" && m.Conversions:
			t.Errorf("%s: %+v says no single way to read it", m.Metric, m)
		}
		seen[m.Metric] = true
	}
	stored := catalog.Measures()
	stored = append(stored, catalog.MustLookup("reach"))
	for _, f := range stored {
		if f.HasPlatform(catalog.MetaAds) && !seen[f.Name] {
			t.Errorf("%s: Meta reports it, but insightsMetrics does not say how", f.Name)
		}
	}
	for m, im := range measureMetrics {
		if f := catalog.MeasureField(catalog.Measure(m)); (im != nil) != f.HasPlatform(catalog.MetaAds) {
			t.Errorf("measure %s: entry %v", f.Name, im)
		}
	}
}

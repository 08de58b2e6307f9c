package importer

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// TestCatalogHeadersRecognized: every column title the catalog declares for a
// metric is read as that metric's column, on its platform only.
func TestCatalogHeadersRecognized(t *testing.T) {
	n := 0
	for _, f := range catalog.Fields() {
		k, ok := metricKind(f)
		if !ok {
			continue
		}
		for _, ep := range exportPlatforms {
			e, ok := f.Exports[ep.name]
			if !ok {
				continue
			}
			for _, h := range append(append([]string{}, e.EN...), e.ES...) {
				n++
				d := lookupHeader(h)
				if d.kindOn(ep.bit) != k || d.platform&ep.bit == 0 {
					t.Errorf("%s: %s header %q is read as kind %d on platforms %b", f.Name, ep.name, h, d.kind, d.platform)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no catalog headers")
	}
}

package plugins

import (
	"flag"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/docstest"
)

var update = flag.Bool("update", false, "rewrite the table generated from the connectors in docs/fields.md")

const (
	fieldsDoc = "../../../docs/fields.md"
	apiBegin  = "<!-- generated from the connectors by `go test ./internal/source/plugins -update`; edit each connector's fields.go, not this table -->"
	apiEnd    = "<!-- end of the connectors' table -->"
)

// apiTable is the markdown table of how every live source's API gives each
// stored metric, from the connectors' own tables (registry.Plugin
// MetricField).
func apiTable() string {
	var b strings.Builder
	header, rule := "| metric |", "|---|"
	for _, p := range All {
		if p.MetricField != nil {
			pl, _ := catalog.PlatformByName(p.Platform)
			header += " " + pl.DisplayName + " API |"
			rule += "---|"
		}
	}
	b.WriteString(header + "\n" + rule + "\n")
	stored := append(catalog.Measures(), catalog.MustLookup("reach"))
	for _, f := range stored {
		row := "| `" + f.Name + "` |"
		for _, p := range All {
			if p.MetricField == nil {
				continue
			}
			cell := p.MetricField(f.Name)
			if cell == "" {
				cell = "–"
			}
			row += " " + cell + " |"
		}
		b.WriteString(row + "\n")
	}
	return b.String()
}

// TestEveryLiveSourceMapsItsPlatform: a live source names its catalog
// platform and gives a field for exactly the stored metrics the catalog says
// its platform reports — so a new platform is documented, and a metric
// added to the catalog is mapped, or the catalog says it is not reported.
func TestEveryLiveSourceMapsItsPlatform(t *testing.T) {
	for _, p := range All {
		if !p.IsLive() {
			continue
		}
		if _, ok := catalog.PlatformByName(p.Platform); !ok || p.MetricField == nil {
			t.Errorf("%s: platform %q, MetricField set %v: a live source names its catalog platform and its metric fields", p.Name, p.Platform, p.MetricField != nil)
			continue
		}
		for _, f := range append(catalog.Measures(), catalog.MustLookup("reach")) {
			if mapped := p.MetricField(f.Name) != ""; mapped != f.HasPlatform(p.Platform) {
				t.Errorf("%s: %s mapped %v, reported on %s per the catalog %v", p.Name, f.Name, mapped, p.Platform, f.HasPlatform(p.Platform))
			}
		}
	}
}

// TestFieldsDocIsTheConnectors: docs/fields.md's table of the APIs' fields is
// the one generated from the connectors.
func TestFieldsDocIsTheConnectors(t *testing.T) {
	docstest.Block(t, fieldsDoc, apiBegin, apiEnd, apiTable(), *update, "go test ./internal/source/plugins -update")
}

package catalog

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/docstest"
)

var update = flag.Bool("update", false, "rewrite the tables generated from the catalog in docs/fields.md")

const (
	fieldsDoc   = "../../docs/fields.md"
	tablesBegin = "<!-- generated from internal/catalog by `go test ./internal/catalog -update`; edit fields.go, not these tables -->"
	tablesEnd   = "<!-- end of generated tables -->"
)

// fieldTables are the markdown tables of every metric and how each platform
// gives it, from the catalog.
func fieldTables() string {
	var b strings.Builder
	b.WriteString("| metric | aggregation | unit | stored as | Meta Ads export | Google Ads export | TikTok Ads export | not reported by |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, f := range Fields() {
		if !f.IsMetric() {
			continue
		}
		b.WriteString("| `" + f.Name + "` | " + aggregationOf(f) + " | " + string(f.Unit) + " | " + storedAs(f) + " | " +
			exportOf(f, ExportMeta) + " | " + exportOf(f, ExportGoogle) + " | " +
			exportOf(f, ExportTikTok) + " | " + notReported(f) + " |\n")
	}
	b.WriteString("\nBreakdown sets (`internal/catalog/breakdowns.go`): the breakdowns each platform reports together. A query reads\n")
	b.WriteString("one set per platform, the first in this order that holds all its breakdowns.\n\n")
	b.WriteString("| set (`facts.breakdown`) | dimensions | kept per | metrics | " + strings.Join(platformNames(), " | ") + " |\n")
	b.WriteString("|---|---|---|---|" + strings.Repeat("---|", len(AllPlatforms)) + "\n")
	for _, s := range BreakdownSets() {
		metrics := "every additive metric (and the ratios of them)"
		if s.Metrics != nil {
			metrics = "`" + strings.Join(s.Metrics, "`, `") + "` only"
		}
		level := map[Level]string{LevelAd: "ad", LevelAdSet: "ad set", LevelCampaign: "campaign"}[s.Level]
		row := "| `" + s.Key + "` | `" + strings.Join(s.Dimensions, "`, `") + "` | " + level + " | " + metrics + " |"
		for _, p := range AllPlatforms {
			mark := " – |"
			if own, ok := platformSet(p, s.Key); ok {
				mark = " yes |"
				if len(own.Dimensions) < len(s.Dimensions) {
					mark = " `" + strings.Join(own.Dimensions, "`, `") + "` only |"
				}
			}
			row += mark
		}
		b.WriteString(row + "\n")
	}
	return b.String()
}

// platformSet is platform's set key as its rows carry it (PlatformSets).
func platformSet(platform, key string) (BreakdownSet, bool) {
	for _, s := range PlatformSets(platform) {
		if s.Key == key {
			return s, true
		}
	}
	return BreakdownSet{}, false
}

func platformNames() []string {
	var out []string
	for _, p := range Platforms() {
		out = append(out, p.DisplayName)
	}
	return out
}

func aggregationOf(f Field) string {
	switch {
	case f.Aggregation == Ratio:
		s := fmt.Sprintf("ratio: `%s` / `%s`", f.Numerator, f.Denominator)
		if f.Scale != 1 {
			s += fmt.Sprintf(" × %g", f.Scale)
		}
		return s
	case f.Distinct != "":
		return "distinct people, read at the grain asked, never summed"
	case f.Aggregation == NonAdditive:
		return fmt.Sprintf("`%s` / `%s` at the grain asked", f.Numerator, f.Denominator)
	}
	return string(f.Aggregation)
}

func storedAs(f Field) string {
	switch {
	case f.Storage != nil:
		return "`facts." + f.Storage.Column + "` (" + string(f.Storage.Kind) + ")"
	case f.Distinct != "":
		return "`reach." + f.Distinct + "` per object and grain"
	}
	return "computed"
}

func exportOf(f Field, platform string) string {
	e, ok := f.Exports[platform]
	if !ok {
		return "–"
	}
	quote := func(ns []string) string { return "*" + strings.Join(ns, "*, *") + "*" }
	s := quote(e.EN)
	if len(e.ES) > 0 {
		s += " (es: " + quote(e.ES) + ")"
	}
	return s
}

func notReported(f Field) string {
	var out []string
	for _, p := range AllPlatforms {
		if !f.HasPlatform(p) {
			out = append(out, "`"+p+"`")
		}
	}
	return strings.Join(out, ", ")
}

// TestFieldsDocIsTheCatalog: docs/fields.md's tables are the ones generated
// from the catalog, so a metric added there is documented, with how every
// platform gives it, without editing a page by hand.
func TestFieldsDocIsTheCatalog(t *testing.T) {
	docstest.Block(t, fieldsDoc, tablesBegin, tablesEnd, fieldTables(), *update, "go test ./internal/catalog -update")
}

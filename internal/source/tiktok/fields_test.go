package tiktok

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// storedMetrics are the metrics a connector fetches: the stored measures and
// reach.
func storedMetrics() []catalog.Field {
	return append(catalog.Measures(), catalog.MustLookup("reach"))
}

// TestMetricFieldsComplete: every stored metric the catalog says TikTok
// reports has its report metric in metricFields, and no metric TikTok does
// not report (nor any name the catalog does not store) has one, so a metric
// added to the catalog for TikTok fails here until its field is named.
func TestMetricFieldsComplete(t *testing.T) {
	stored := map[string]bool{}
	for _, f := range storedMetrics() {
		stored[f.Name] = true
		field, ok := metricFields[f.Name]
		switch reports := f.HasPlatform(catalog.TikTokAds); {
		case reports && (!ok || field == ""):
			t.Errorf("%s: TikTok reports it (catalog Platforms) but metricFields has no report metric for it", f.Name)
		case !reports && ok:
			t.Errorf("%s: TikTok does not report it (catalog Platforms) but metricFields maps it to %q", f.Name, field)
		}
	}
	for name := range metricFields {
		if !stored[name] {
			t.Errorf("metricFields maps %q, which is not a stored catalog metric nor reach", name)
		}
	}
	for m, f := range catalog.Measures() {
		if measureFields[m] != metricFields[f.Name] {
			t.Errorf("measureFields[%s] = %q, want %q", f.Name, measureFields[m], metricFields[f.Name])
		}
	}
}

// markdownRows are the rows of the first table of doc whose header starts
// with header, as trimmed cells, and the header's cells.
func markdownRows(t *testing.T, doc, header string) (head []string, rows [][]string) {
	t.Helper()
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	cells := func(line string) []string {
		parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	in := false
	for line := range strings.Lines(string(raw)) {
		switch {
		case !in && strings.HasPrefix(line, header):
			in, head = true, cells(line)
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			rows = append(rows, cells(line))
		case in:
			return head, rows
		}
	}
	if !in {
		t.Fatalf("%s has no table whose header starts with %q", doc, header)
	}
	return head, rows
}

// checkDocTable: in the table of doc whose header starts with header, the
// row of each stored metric names in column col the report metric of
// metricFields (as `field`), or none when TikTok reports none; every metric
// of metricFields has a row.
func checkDocTable(t *testing.T, doc, header, col, none string) {
	head, rows := markdownRows(t, doc, header)
	at := slices.Index(head, col)
	if at < 0 {
		t.Fatalf("%s: the table %q has no column %q", doc, header, col)
	}
	stored := map[string]bool{}
	for _, f := range storedMetrics() {
		stored[f.Name] = true
	}
	seen := map[string]bool{}
	for _, r := range rows {
		name := strings.Trim(r[0], "`")
		if !stored[name] || r[0] != "`"+name+"`" || len(r) <= at {
			continue
		}
		seen[name] = true
		want := none
		if field, ok := metricFields[name]; ok {
			want = "`" + field + "`"
		}
		if r[at] != want {
			t.Errorf("%s: %s's %s is %s, but metricFields says %s", doc, name, col, r[at], want)
		}
	}
	for name := range metricFields {
		if !seen[name] {
			t.Errorf("%s: no row for %s in the table %q", doc, name, header)
		}
	}
}

// TestFieldsDocsAreTheTable: docs/tiktok.md's field mapping says what
// metricFields fetches.
func TestFieldsDocsAreTheTable(t *testing.T) {
	checkDocTable(t, "../../../docs/tiktok.md", "| Our field | TikTok |", "TikTok", "—")
}

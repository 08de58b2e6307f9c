package main

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
)

// TestQueryRawCompareLabelsBothWindows: --raw with --compare prints both
// windows' rows as the source returns them, in one CSV whose window column
// labels them: the current rows are those of --raw over the date range, the
// compare rows those of --raw over the comparison window; stderr states both
// windows, and that the sort and limit (which select compared rows) are not
// applied.
func TestQueryRawCompareLabelsBothWindows(t *testing.T) {
	db := testDB(t)
	base := []string{"query", "--raw", "--db", db, "--today", "2026-03-15", "--platform", "meta",
		"-m", "spend,clicks,ctr,reach", "-d", "account_name", "-g", "weekly"}
	rawCSV := func(args ...string) ([][]string, string) {
		t.Helper()
		out, stderr, err := runCLI(append(slices.Clone(base), args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%v: not CSV with rows: %v\n%s", args, err, out)
		}
		return recs, stderr
	}
	// last_14d on 2026-03-15 is 2026-03-01 … 2026-03-14: it touches three ISO
	// weeks, so previous_period is the same days three weeks earlier.
	got, stderr := rawCSV("--preset", "last_14d", "--compare", "previous_period", "--sort", "spend_change", "--limit", "2")
	current, _ := rawCSV("--start", "2026-03-01", "--end", "2026-03-14")
	compare, _ := rawCSV("--start", "2026-02-08", "--end", "2026-02-21")

	if want := append([]string{"window"}, current[0]...); !slices.Equal(got[0], want) {
		t.Fatalf("header %v, want %v", got[0], want)
	}
	var cur, cmp [][]string
	for _, r := range got[1:] {
		switch r[0] {
		case "current":
			cur = append(cur, r[1:])
		case "compare":
			cmp = append(cmp, r[1:])
		default:
			t.Fatalf("row labelled %q, want current or compare: %v", r[0], r)
		}
	}
	if !slices.EqualFunc(cur, current[1:], slices.Equal) {
		t.Errorf("current rows:\n%v\nwant --raw over the date range:\n%v", cur, current[1:])
	}
	if !slices.EqualFunc(cmp, compare[1:], slices.Equal) {
		t.Errorf("compare rows:\n%v\nwant --raw over the comparison window:\n%v", cmp, compare[1:])
	}
	for _, want := range []string{"current is the date range 2026-03-01 … 2026-03-14 (14 days, 18 rows)",
		"compare the comparison window 2026-02-08 … 2026-02-21 (14 days, 18 rows)", "--sort, --limit and metric filters select the compared rows"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestStackWindowsUnionsColumns: a column only one window has is empty in the
// other's rows, never shifted or dropped.
func TestStackWindowsUnionsColumns(t *testing.T) {
	cur := &fit.Table{Columns: []*fit.Column{
		{Name: "campaign_name", Role: fit.RoleDimension, Strings: []string{"A"}},
		{Name: "spend", Role: fit.RoleMetric, Numbers: []float64{1.5}},
		{Name: "reach", Role: fit.RoleMetric, Numbers: []float64{10}},
	}}
	base := &fit.Table{Columns: []*fit.Column{
		{Name: "campaign_name", Role: fit.RoleDimension, Strings: []string{"A", "B"}},
		{Name: "spend", Role: fit.RoleMetric, Numbers: []float64{2, 0}, Null: []bool{false, true}},
		{Name: "country", Role: fit.RoleDimension, Strings: []string{"DE", "FR"}},
	}}
	var b strings.Builder
	if err := fit.WriteCSV(&b, stackWindows(cur, base)); err != nil {
		t.Fatal(err)
	}
	want := "window,campaign_name,spend,reach,country\ncurrent,A,1.5,10,\ncompare,A,2,,DE\ncompare,B,,,FR\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/query"
)

func TestParseCompareFlag(t *testing.T) {
	window := func(s, e string) *query.CompareArg {
		return &query.CompareArg{Window: &query.DateRange{Start: s, End: e}}
	}
	for in, want := range map[string]*query.CompareArg{
		"previous_period":          {Mode: "previous_period"},
		" yoy ":                    {Mode: "yoy"},
		"2025-01-01..2025-01-31":   window("2025-01-01", "2025-01-31"),
		"2025-01-01 .. 2025-01-31": window("2025-01-01", "2025-01-31"),
		"2025-01-01/2025-01-31":    window("2025-01-01", "2025-01-31"),
		"2025-01-01,2025-01-31":    window("2025-01-01", "2025-01-31"),
	} {
		got, err := parseCompareFlag(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCompareFlag(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"2025-01-01..", "..2025-01-31", ","} {
		if _, err := parseCompareFlag(bad); err == nil || !strings.Contains(err.Error(), "START..END") {
			t.Errorf("parseCompareFlag(%q): %v", bad, err)
		}
	}
}

// TestQueryCompareFlag: --compare reaches the query tool's compare argument,
// checked exactly as for the MCP tool.
func TestQueryCompareFlag(t *testing.T) {
	db := testDB(t)
	base := []string{"query", "--raw", "--db", db, "--today", "2026-03-15", "-p", "meta", "-m", "spend",
		"--start", "2026-03-01", "--end", "2026-03-14"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "previous_month"}, "compare: unknown comparison (got previous_month); did you mean"},
		{[]string{"--compare", "2026-03-10..2026-03-20"}, "compare: overlaps the date range 2026-03-01 to 2026-03-14"},
		{[]string{"--compare-to", "2026-02-30..2026-03-20"}, "compare.start: is not a date"},
		{[]string{"--sort", "spend_change"}, "add compare"},
		{[]string{"--json", `{"compare":"previous_period"}`, "--compare", "nope"}, "compare: unknown comparison (got nope)"},
	} {
		_, _, err := runCLI(append(base, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	// A valid comparison is accepted.
	if _, stderr, err := runCLI(append(base, "--comparison", "YoY", "--sort", "spend_change_pct")...); err != nil {
		t.Errorf("--comparison YoY: %v\n%s", err, stderr)
	}
}

package query

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// compareArgs is base() over an explicit range, compared as c.
func compareArgs(start, end string, c *CompareArg) Args {
	a := base()
	a.DateRange = &DateRange{Start: start, End: end}
	a.Compare = c
	return a
}

func mode(s string) *CompareArg { return &CompareArg{Mode: s} }

func window(start, end string) *CompareArg {
	return &CompareArg{Window: &DateRange{Start: start, End: end}}
}

func TestParseCompare(t *testing.T) {
	a, _ := mustParse(t, `{"metrics":["spend"],"compare":"previous_period"}`)
	if !reflect.DeepEqual(a.Compare, mode("previous_period")) {
		t.Errorf("string: %+v", a.Compare)
	}
	// The object form forgives date_range's key spellings.
	a, _ = mustParse(t, `{"metrics":["spend"],"compare":{"since":"2025-01-01","until":"2025-01-31"}}`)
	if !reflect.DeepEqual(a.Compare, window("2025-01-01", "2025-01-31")) {
		t.Errorf("object: %+v", a.Compare)
	}
	a, _ = mustParse(t, `{"metrics":["spend"],"compare":null}`)
	if a.Compare != nil {
		t.Errorf("null: %+v", a.Compare)
	}
	// Written back the same way.
	for _, c := range []*CompareArg{mode("previous_year"), window("2025-01-01", "2025-01-31")} {
		b, err := json.Marshal(Args{Compare: c})
		if err != nil {
			t.Fatal(err)
		}
		back, _ := mustParse(t, string(b))
		if !reflect.DeepEqual(back.Compare, c) {
			t.Errorf("%s read back as %+v", b, back.Compare)
		}
	}
}

func TestCompareModeSpellings(t *testing.T) {
	for in, want := range map[string]string{
		"previous_period": PreviousPeriod, "Previous Period": PreviousPeriod, "previous-period": PreviousPeriod,
		"prior_period": PreviousPeriod, "period_over_period": PreviousPeriod, "PoP": PreviousPeriod,
		"previous_year": PreviousYear, "PREVIOUS_YEAR": PreviousYear, "yoy": PreviousYear, "year_over_year": PreviousYear,
		"prior_year": PreviousYear, "last_year": PreviousYear, " previous year ": PreviousYear,
	} {
		q := mustNormalize(t, compareArgs("2026-03-01", "2026-03-14", mode(in)))
		if q.Compare == nil || q.Compare.Mode != want {
			t.Errorf("%q: compare %+v, want %s", in, q.Compare, want)
			continue
		}
		if in == want {
			noChange(t, q, ChangeValueNormalized)
			continue
		}
		if c := oneChange(t, q, ChangeValueNormalized); c.Field != "compare" || c.From != in || c.To != want {
			t.Errorf("%q: change %+v", in, c)
		}
	}
}

func TestCompareModeErrors(t *testing.T) {
	// Only the two modes' spellings are forgiven: previous_month is not guessed.
	p := problemAt(t, mustFail(t, compareArgs("2026-03-01", "2026-03-14", mode("previous_month"))), "compare")
	if !slices.Equal(p.Valid, CompareModes) || !slices.Contains(p.Closest, PreviousPeriod) || !strings.Contains(p.Fix, `"start"`) {
		t.Errorf("previous_month: %+v", p)
	}
	p = problemAt(t, mustFail(t, compareArgs("2026-03-01", "2026-03-14", mode(""))), "compare")
	if !strings.Contains(p.Problem, "empty") {
		t.Errorf("empty: %+v", p)
	}
	// "custom" needs its dates.
	p = problemAt(t, mustFail(t, compareArgs("2026-03-01", "2026-03-14", mode("custom"))), "compare")
	if !strings.Contains(p.Fix, `{"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`) {
		t.Errorf("custom: %+v", p)
	}
}

func TestCompareWindowsOfNormalizedQueries(t *testing.T) {
	tests := []struct {
		name   string
		a      Args
		mode   string
		ws, we string
	}{
		{"previous_period, total grain", compareArgs("2026-03-01", "2026-03-14", mode("previous_period")), PreviousPeriod, "2026-02-15", "2026-02-28"},
		{"previous_year", compareArgs("2026-03-01", "2026-03-14", mode("previous_year")), PreviousYear, "2025-03-01", "2025-03-14"},
		{"explicit window before", compareArgs("2026-03-01", "2026-03-14", window("2025-12-01", "2025-12-31")), CustomWindow, "2025-12-01", "2025-12-31"},
		{"explicit window after, in the future", compareArgs("2026-03-01", "2026-03-07", window("2026-03-08", "2026-04-30")), CustomWindow, "2026-03-08", "2026-04-30"},
		{"explicit window long before the data", compareArgs("2026-03-01", "2026-03-07", window("2001-01-01", "2001-01-07")), CustomWindow, "2001-01-01", "2001-01-07"},
		{"explicit window spelled with spaces", compareArgs("2026-03-01", "2026-03-07", window(" 2026-02-01 ", "2026-02-07")), CustomWindow, "2026-02-01", "2026-02-07"},
	}
	for _, tt := range tests {
		q := mustNormalize(t, tt.a)
		if q.Compare == nil || q.Compare.Mode != tt.mode || span(q.Compare.Start, q.Compare.End) != span(date(tt.ws), date(tt.we)) {
			t.Errorf("%s: compare %+v, want %s %s..%s", tt.name, q.Compare, tt.mode, tt.ws, tt.we)
		}
	}
	// The window follows the range as clamped to today, and the preset's dates.
	a := compareArgs("2026-03-09", "2026-03-22", mode("previous_period"))
	q := mustNormalize(t, a)
	if span(q.Compare.Start, q.Compare.End) != "2026-03-02 to 2026-03-08" {
		t.Errorf("clamped range: compare %s", span(q.Compare.Start, q.Compare.End))
	}
	a = base()
	a.DatePreset, a.TimeGranularity, a.Compare = "last_month", "monthly", mode("previous_period")
	if q := mustNormalize(t, a); span(q.Compare.Start, q.Compare.End) != "2026-01-01 to 2026-01-31" {
		t.Errorf("last_month at monthly grain: compare %s", span(q.Compare.Start, q.Compare.End))
	}
	// The grain a time word in dimensions implies is the grain of the rule:
	// weekly, so the same weekdays a week earlier, not the 3 days before.
	a = compareArgs("2026-03-11", "2026-03-13", mode("previous_period"))
	a.Dimensions = []string{"week"}
	if q := mustNormalize(t, a); q.Grain != "weekly" || span(q.Compare.Start, q.Compare.End) != "2026-03-04 to 2026-03-06" {
		t.Errorf("grain %s: compare %s", q.Grain, span(q.Compare.Start, q.Compare.End))
	}
	if q := mustNormalize(t, base()); q.Compare != nil {
		t.Errorf("no compare: %+v", q.Compare)
	}
}

func TestCompareWindowErrors(t *testing.T) {
	// An explicit window sharing a day with the range: named, with both windows and the fix.
	for _, w := range [][2]string{{"2026-02-20", "2026-03-01"}, {"2026-03-14", "2026-03-20"}, {"2026-03-05", "2026-03-06"}, {"2026-01-01", "2026-12-31"}} {
		p := problemAt(t, mustFail(t, compareArgs("2026-03-01", "2026-03-14", window(w[0], w[1]))), "compare")
		if !strings.Contains(p.Problem, "2026-03-01 to 2026-03-14") || p.Value != w[0]+" to "+w[1] ||
			!strings.Contains(p.Fix, "ends before 2026-03-01 or starts after 2026-03-14") || !strings.Contains(p.Fix, "previous_period") {
			t.Errorf("%v: %+v", w, p)
		}
	}
	// Dates that do not parse, reversed, too long.
	e := mustFail(t, compareArgs("2026-03-01", "2026-03-14", window("2026-02-30", "Feb 1")))
	problemAt(t, e, "compare.start")
	problemAt(t, e, "compare.end")
	p := problemAt(t, mustFail(t, compareArgs("2026-03-01", "2026-03-14", window("2026-02-10", "2026-02-01"))), "compare")
	if !strings.Contains(p.Problem, "start is after end") {
		t.Errorf("reversed: %+v", p)
	}
	opt := testOptions()
	opt.MaxSpanDays = 60
	p = problemAt(t, mustFailWith(t, compareArgs("2026-03-01", "2026-03-14", window("2025-01-01", "2025-12-31")), opt), "compare")
	if !strings.Contains(p.Problem, "60 days") {
		t.Errorf("too long: %+v", p)
	}
	// previous_year over more than a year overlaps: rejected, naming both windows.
	p = problemAt(t, mustFail(t, compareArgs("2025-03-01", "2026-03-01", mode("previous_year"))), "compare")
	if !strings.Contains(p.Problem, "2025-03-01 to 2026-03-01") || !strings.Contains(p.Problem, "2024-03-01 to 2025-03-01") ||
		!strings.Contains(p.Fix, "previous_period") {
		t.Errorf("previous_year over a year: %+v", p)
	}
	// previous_period never overlaps, however long the range.
	mustNormalize(t, compareArgs("2025-01-01", "2026-03-01", mode("previous_period")))
	// A wrong date range is the only problem: no window is made up from it.
	e = mustFail(t, compareArgs("2026-03-10", "2026-03-01", mode("previous_period")))
	if hasProblemAt(e, "compare") {
		t.Errorf("compare problem on a wrong date range: %v", e)
	}
	// A wrong compare mode is reported alongside the range's problem.
	e = mustFail(t, compareArgs("2026-03-10", "2026-03-01", mode("nope")))
	problemAt(t, e, "date_range")
	problemAt(t, e, "compare")
}

func TestCompareArgsRoundTrip(t *testing.T) {
	opt := testOptions()
	for _, a := range []Args{
		compareArgs("2026-03-01", "2026-03-14", mode("yoy")),
		compareArgs("2026-03-01", "2026-03-14", window("2025-03-01", "2025-03-31")),
		func() Args {
			a := base()
			a.DatePreset, a.TimeGranularity, a.Compare = "last_month", "weekly", mode("Previous Period")
			a.Sort = []SortArg{{Field: "Spend Change %"}}
			a.Limit = intp(5)
			a.Filters = []FilterArg{{Field: "spend_compare", Operator: ">", Value: 10}}
			return a
		}(),
	} {
		q := mustNormalize(t, a)
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		q2, err := ParseAndNormalize(b, opt)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !equalQueries(q, q2) || len(q2.Changes) != 0 || !reflect.DeepEqual(q.Compare, q2.Compare) {
			t.Errorf("round trip of %s:\n%+v\n%+v", b, q, q2)
		}
	}
	// The mode is written as the mode, an explicit window as {start, end}.
	b, _ := json.Marshal(mustNormalize(t, compareArgs("2026-03-01", "2026-03-14", mode("yoy"))))
	if !strings.Contains(string(b), `"compare":"previous_year"`) {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(mustNormalize(t, compareArgs("2026-03-01", "2026-03-14", window("2025-03-01", "2025-03-31"))))
	if !strings.Contains(string(b), `"compare":{"start":"2025-03-01","end":"2025-03-31"}`) {
		t.Errorf("%s", b)
	}
}

func TestCompareQuery(t *testing.T) {
	a := compareArgs("2026-03-01", "2026-03-14", mode("previous_period"))
	a.Dimensions = []string{"campaign_name"}
	a.Filters = []FilterArg{{Field: "country", Operator: "IN", Value: []any{"US", "AR"}}, {Field: "spend_change", Operator: ">", Value: 1}}
	a.Sort = []SortArg{{Field: "spend_change_pct"}}
	a.Limit = intp(3)
	q := mustNormalize(t, a)
	c := q.CompareQuery()
	if !c.Start.Equal(date("2026-02-15")) || !c.End.Equal(date("2026-02-28")) || c.Compare != nil || c.Preset != "" {
		t.Fatalf("compare query %+v", c)
	}
	// Everything else is the query's.
	want := *q
	want.Start, want.End, want.Compare, want.Preset = c.Start, c.End, nil, ""
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("compare query\n%+v\nwant\n%+v", *c, want)
	}
	// Its slices are its own.
	c.Accounts[0].AccountID = "x"
	c.Dimensions[0], c.Metrics[0], c.Sort[0].Field = "x", "x", "x"
	c.Filters[0].Values[0] = "x"
	c.Filters[1].Field = "x"
	if q.Accounts[0].AccountID == "x" || q.Dimensions[0] == "x" || q.Metrics[0] == "x" || q.Sort[0].Field == "x" ||
		q.Filters[0].Values[0] == "x" || q.Filters[1].Field == "x" {
		t.Errorf("editing the compare query changed the query: %+v", q)
	}
	if mustNormalize(t, base()).CompareQuery() != nil {
		t.Errorf("a query without compare has a compare query")
	}
}

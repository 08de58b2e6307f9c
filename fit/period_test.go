package fit

import (
	"strings"
	"testing"
	"time"
)

func TestQuarterlyRollup(t *testing.T) {
	cases := []struct {
		name string
		in   *Table
		want *Table
		err  string
	}{{
		name: "daily to quarterly: quarter ends, leap day, year end",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2024-03-31", "2024-02-29", "2024-04-01", "2025-12-31", "2026-01-01", "2026-09-30", "2026-10-01"),
			rtDim("campaign", "A", "A", "A", "B", "B", "A", "A"),
			rtSum("spend", 1, 2, 4, 8, 16, 32, 64),
		}},
		want: &Table{Grain: Quarterly, RowsBeforeLimit: 6, Columns: []*Column{
			rtTime("quarter", "2024-Q1", "2024-Q2", "2025-Q4", "2026-Q1", "2026-Q3", "2026-Q4"),
			rtDim("campaign", "A", "A", "B", "B", "A", "A"),
			rtSum("spend", 3, 4, 8, 16, 32, 64),
		}},
	}, {
		name: "monthly to quarterly: three months a quarter, ratios from summed parts",
		in: &Table{Grain: Monthly, Columns: []*Column{
			rtTime("month", "2026-01", "2026-02", "2026-03", "2026-04", "2025-12"),
			rtSum("clicks", 1, 2, 3, 4, 5),
			rtRatio("ctr", "clicks", "impressions", 100, 10, 10, 10, 10, 10),
			rtHidden(rtSum("impressions", 10, 20, 30, 40, 50)),
		}},
		want: &Table{Grain: Quarterly, RowsBeforeLimit: 3, Columns: []*Column{
			rtTime("quarter", "2025-Q4", "2026-Q1", "2026-Q2"),
			rtSum("clicks", 5, 6, 4),
			rtRatio("ctr", "clicks", "impressions", 100, 10, 10, 10),
			rtHidden(rtSum("impressions", 50, 60, 40)),
		}},
	}, {
		name: "quarterly to total",
		in: &Table{Grain: Quarterly, Columns: []*Column{
			rtTime("quarter", "2025-Q4", "2026-Q1"),
			rtSum("clicks", 1, 2),
		}},
		want: &Table{Grain: Total, RowsBeforeLimit: 1, Columns: []*Column{rtSum("clicks", 3)}},
	}, {
		name: "weekly to quarterly is not exact: a week can straddle two quarters",
		in:   &Table{Grain: Weekly, Columns: []*Column{rtTime("week", "2026-03-30"), rtSum("clicks", 1)}},
		err:  "cannot roll up weekly rows to quarterly",
	}, {
		name: "a bad month label",
		in:   &Table{Grain: Monthly, Columns: []*Column{rtTime("month", "2026-03", "2026-03-01"), rtSum("clicks", 1, 2)}},
		err:  `row 1: month "2026-03-01" is not a YYYY-MM month`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			to := Quarterly
			if c.want != nil {
				to = c.want.Grain
			}
			got, _, err := Rollup(c.in, to)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := rtDiff(got, c.want, 1e-12); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestQuarterLabels(t *testing.T) {
	for _, c := range []struct {
		day, want string
	}{
		{"2026-01-01", "2026-Q1"}, {"2026-03-31", "2026-Q1"}, {"2026-04-01", "2026-Q2"},
		{"2026-06-30", "2026-Q2"}, {"2026-07-01", "2026-Q3"}, {"2026-09-30", "2026-Q3"},
		{"2026-10-01", "2026-Q4"}, {"2026-12-31", "2026-Q4"}, {"2024-02-29", "2024-Q1"},
		{"0999-05-05", "0999-Q2"},
	} {
		if got := periodOf(Quarterly, rtDate(c.day)); got != c.want {
			t.Errorf("periodOf(quarterly, %s) = %q, want %q", c.day, got, c.want)
		}
	}
	if got := periodOf(Quarterly, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); got != "" {
		t.Errorf("a five-digit year got the label %q", got)
	}
	// The calendar day in the time's own location counts.
	nyc := time.FixedZone("UTC-5", -5*3600)
	if got := periodOf(Quarterly, time.Date(2026, 3, 31, 23, 30, 0, 0, nyc)); got != "2026-Q1" {
		t.Errorf("23:30 on 31 March in UTC-5 is %q, want 2026-Q1", got)
	}
}

// Every day's label, at every grain, parses back to the first day of its
// period, which holds the day; and labels sort as their periods do.
func TestParsePeriodRoundTrip(t *testing.T) {
	prev := map[Grain]string{}
	for d := rtDate("2023-11-01"); d.Before(rtDate("2026-03-01")); d = d.AddDate(0, 0, 1) {
		for _, g := range []Grain{Daily, Weekly, Monthly, Quarterly} {
			label := periodOf(g, d)
			start, err := ParsePeriod(g, label)
			if err != nil {
				t.Fatalf("ParsePeriod(%s, %q): %v", g, label, err)
			}
			if start.After(d) || periodOf(g, start) != label || periodOf(g, start.AddDate(0, 0, -1)) == label {
				t.Fatalf("ParsePeriod(%s, %q) = %s: not the first day of the period of %s", g, label, start.Format(dayLayout), d.Format(dayLayout))
			}
			if label < prev[g] {
				t.Fatalf("%s label %q sorts before the earlier %q", g, label, prev[g])
			}
			prev[g] = label
		}
	}
}

func TestParsePeriodRejects(t *testing.T) {
	for _, c := range []struct {
		g     Grain
		label string
	}{
		{Quarterly, "2026-Q0"}, {Quarterly, "2026-Q5"}, {Quarterly, "2026Q1"}, {Quarterly, "2026-q1"},
		{Quarterly, "2026-10"}, {Quarterly, "2026-10-01"}, {Quarterly, "abcd-Q1"}, {Quarterly, "2026-Q12"},
		{Monthly, "2026-Q1"}, {Monthly, "2026-13"}, {Daily, "2026-02-30"},
		{Weekly, "2026-03-04"}, // a Wednesday
		{Total, ""}, {"hourly", "2026-03-04"},
	} {
		if got, err := ParsePeriod(c.g, c.label); err == nil {
			t.Errorf("ParsePeriod(%s, %q) = %s, want an error", c.g, c.label, got)
		}
	}
}

func TestPartialQuarters(t *testing.T) {
	for _, c := range []struct {
		start, end  string
		first, last bool
	}{
		{"2026-01-01", "2026-03-31", false, false},
		{"2026-01-01", "2026-12-31", false, false},
		{"2025-10-01", "2026-03-31", false, false}, // across the year end
		{"2026-02-01", "2026-03-31", true, false},  // a whole month, not a whole quarter
		{"2026-01-01", "2026-02-28", false, true},
		{"2026-04-02", "2026-06-30", true, false},
		{"2026-07-01", "2026-09-29", false, true},
		{"2026-05-15", "2026-05-15", true, true},
		{"2024-01-01", "2024-03-30", false, true}, // leap year: 31 March is missing
	} {
		f, l := PartialPeriods(Quarterly, rtDate(c.start), rtDate(c.end))
		if f != c.first || l != c.last {
			t.Errorf("PartialPeriods(quarterly, %s, %s) = %v, %v; want %v, %v", c.start, c.end, f, l, c.first, c.last)
		}
	}
}

func TestPeriodWord(t *testing.T) {
	want := map[Grain]string{Daily: "day", Weekly: "week", Monthly: "month", Quarterly: "quarter", Total: "date range", "hourly": "date range"}
	for g, w := range want {
		if got := g.PeriodWord(); got != w {
			t.Errorf("%s.PeriodWord() = %q, want %q", g, got, w)
		}
	}
}

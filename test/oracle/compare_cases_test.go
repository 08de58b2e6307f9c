package oracle

import (
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestCompareWindowRules holds the oracle's windows to the examples
// docs/query.md and internal/query's compareWindow give, so the property
// test's reference is itself checked against the spec.
func TestCompareWindowRules(t *testing.T) {
	for _, c := range []struct {
		mode, grain, start, end, wantStart, wantEnd string
	}{
		// previous_period, monthly: as many calendar months back, a month's
		// last day to the earlier month's last day.
		{PreviousPeriod, "monthly", "2026-11-01", "2026-11-30", "2026-10-01", "2026-10-31"},
		{PreviousPeriod, "monthly", "2026-11-01", "2026-11-15", "2026-10-01", "2026-10-15"},
		{PreviousPeriod, "monthly", "2026-01-31", "2026-01-31", "2025-12-31", "2025-12-31"},
		{PreviousPeriod, "monthly", "2026-03-30", "2026-03-31", "2026-02-28", "2026-02-28"},
		{PreviousPeriod, "monthly", "2024-03-30", "2024-03-31", "2024-02-29", "2024-02-29"},
		{PreviousPeriod, "monthly", "2026-01-15", "2026-02-10", "2025-11-15", "2025-12-10"},
		// total over whole months: as many whole months; otherwise the days before.
		{PreviousPeriod, "total", "2026-11-01", "2026-11-30", "2026-10-01", "2026-10-31"},
		{PreviousPeriod, "total", "2025-10-01", "2025-12-31", "2025-07-01", "2025-09-30"},
		{PreviousPeriod, "total", "2026-11-02", "2026-11-30", "2026-10-04", "2026-11-01"},
		{PreviousPeriod, "daily", "2026-03-01", "2026-03-30", "2026-01-30", "2026-02-28"},
		// weekly: as many ISO weeks back as the range touches, same weekdays.
		{PreviousPeriod, "weekly", "2026-02-11", "2026-02-20", "2026-01-28", "2026-02-06"},
		{PreviousPeriod, "weekly", "2026-02-09", "2026-03-08", "2026-01-12", "2026-02-08"},
		// quarterly: as many calendar quarters back.
		{PreviousPeriod, "quarterly", "2026-02-15", "2026-03-31", "2025-11-15", "2025-12-31"},
		{PreviousPeriod, "quarterly", "2025-12-01", "2026-01-31", "2025-06-01", "2025-07-31"},
		// previous_year: the same dates, Feb 29 → Feb 28, a whole February
		// stays whole.
		{PreviousYear, "daily", "2025-02-01", "2025-02-28", "2024-02-01", "2024-02-29"},
		{PreviousYear, "total", "2025-02-28", "2025-02-28", "2024-02-28", "2024-02-28"},
		{PreviousYear, "monthly", "2024-02-29", "2024-03-05", "2023-02-28", "2023-03-05"},
		{PreviousYear, "quarterly", "2026-01-01", "2026-03-14", "2025-01-01", "2025-03-14"},
		// previous_year weekly: the same ISO week and weekday of the previous
		// ISO year (week 53 → 52), the range's day count.
		{PreviousYear, "weekly", "2026-02-11", "2026-02-20", "2025-02-12", "2025-02-21"},
		{PreviousYear, "weekly", "2026-02-09", "2026-03-08", "2025-02-10", "2025-03-09"},
		{PreviousYear, "weekly", "2021-01-01", "2021-01-03", "2019-12-27", "2019-12-29"},
		{PreviousYear, "weekly", "2027-01-01", "2027-01-07", "2025-12-26", "2026-01-01"},
	} {
		s, e := CompareWindow(c.mode, day(c.start), day(c.end), c.grain)
		if got, want := s.Format(time.DateOnly)+" … "+e.Format(time.DateOnly), c.wantStart+" … "+c.wantEnd; got != want {
			t.Errorf("%s at %s grain over %s … %s: %s, want %s", c.mode, c.grain, c.start, c.end, got, want)
		}
	}
}

// pinnedCompare is a comparison call the issue calls out, with what its
// answer must show beyond the invariants.
type pinnedCompare struct {
	name   string
	args   string
	client string
	budget int
	check  func(t *testing.T, d *Data, c *tcase)
}

// TestCompareCases runs the comparisons the issue calls out through every
// invariant of TestPropertyCompare, and checks what each is about.
func TestCompareCases(t *testing.T) {
	runPinned(t, []pinnedCompare{
		{name: "previous_period monthly over a whole month",
			args: `{"account_ids":["act_1015823746512093","act_4409187263550918"],"date_range":{"start":"2026-02-01","end":"2026-02-28"},"dimensions":["campaign_id"],"metrics":["spend","clicks","ctr","cpa","reach"],"time_granularity":"monthly","compare":"previous_period"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				wantWindow(t, c, "2026-01-01", "2026-01-31", 31)
				wantWarning(t, c, "compare_window_length")
				reach := 0
				for _, r := range c.tab.rows {
					if cell(c, r, "month") != "2026-02" || cell(c, r, "compare_month") != "2026-01" {
						t.Errorf("row %v: want month 2026-02 against compare_month 2026-01", r)
					}
					if cell(c, r, "reach") != "" && cell(c, r, "reach_compare") != "" {
						reach++
					}
				}
				if reach == 0 {
					t.Errorf("no row compares reach, stored per whole month in both windows: %v", c.tab.header)
				}
			}},
		{name: "previous_year weekly, whole ISO weeks",
			args: `{"account_ids":["act_1015823746512093","482-915-3307"],"date_range":{"start":"2026-02-09","end":"2026-03-08"},"dimensions":["campaign_name"],"metrics":["spend","roas","clicks"],"time_granularity":"weekly","compare":"previous_year"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				wantWindow(t, c, "2025-02-10", "2025-03-09", 28)
				wantISOWeeks(t, c)
				if c.meta.warning("compare_weekdays") != nil {
					t.Errorf("compare_weekdays for two windows of the same ISO weekdays")
				}
			}},
		{name: "previous_year weekly, partial first and last weeks",
			args: `{"account_ids":["act_4409187263550918"],"date_range":{"start":"2026-02-11","end":"2026-02-20"},"dimensions":["campaign_name"],"metrics":["spend","ctr"],"time_granularity":"weekly","compare":"previous_year"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				wantWindow(t, c, "2025-02-12", "2025-02-21", 10)
				wantISOWeeks(t, c)
			}},
		{name: "a comparison window before the data",
			args: `{"account_ids":["act_1015823746512093","617-204-8851"],"date_range":{"start":"2025-03-01","end":"2025-03-31"},"dimensions":["campaign_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"monthly","compare":"previous_year"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				wantWindow(t, c, "2024-03-01", "2024-03-31", 31)
				wantWarning(t, c, "compare_coverage")
				if len(c.tab.rows) == 0 {
					t.Fatal("no rows")
				}
				for _, r := range c.tab.rows {
					if cell(c, r, "compare_status") != "new" || cell(c, r, "spend_compare") != "0" || cell(c, r, "ctr_compare") != "" {
						t.Errorf("row %v: want new, spend_compare 0, ctr_compare empty", r)
					}
				}
				if m := c.cmp.meta; m.New != len(c.tab.rows) || m.Both != 0 || m.Stopped != 0 {
					t.Errorf("_meta.comparison counts %d both, %d new, %d stopped; every one of %d rows is new", m.Both, m.New, m.Stopped, len(c.tab.rows))
				}
			}},
	})
}

// runPinned runs each pinned call (and its suggestions), its own check, then
// every invariant over all of them.
func runPinned(t *testing.T, pins []pinnedCompare) {
	d := oracleData(t)
	e := &answer.Engine{Source: engineSource(t), Now: duckdbtest.Now}
	var cases []*tcase
	for _, p := range pins {
		cs := runCompare(t, e, p.name, &call{Client: p.client, Budget: p.budget}, []byte(p.args))
		c := cs[0]
		t.Run(strings.ReplaceAll(p.name, " ", "_"), func(t *testing.T) {
			if c.problem != "" || c.cmp == nil {
				t.Fatalf("unreadable comparison (%s):\n%s", c.problem, describe(c))
			}
			if p.check != nil {
				p.check(t, d, c)
			}
			if t.Failed() {
				t.Log(describe(c))
			}
		})
		cases = append(cases, cs...)
	}
	checkInvariants(t, d, cases, compareInvariants)
}

func cell(c *tcase, row []string, col string) string {
	if i := c.tab.col(col); i >= 0 {
		return row[i]
	}
	return "(no column " + col + ")"
}

func wantWindow(t *testing.T, c *tcase, start, end string, days int) {
	t.Helper()
	if c.cmp.meta == nil {
		t.Fatal("no _meta.comparison")
	}
	if got, want := c.cmp.meta.Compare, (windowJSON{start, end, days}); got != want {
		t.Errorf("_meta.comparison.compare %+v, want %+v", got, want)
	}
}

func wantWarning(t *testing.T, c *tcase, typ string) {
	t.Helper()
	if c.meta.warning(typ) == nil {
		t.Errorf("no %s warning", typ)
	}
}

// wantISOWeeks: each row pairs a week with the same ISO week number of the
// previous ISO year.
func wantISOWeeks(t *testing.T, c *tcase) {
	t.Helper()
	if !c.isCSV() || len(c.tab.rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range c.tab.rows {
		w, cw := cell(c, r, "week"), cell(c, r, "compare_week")
		if w == "" || cw == "" {
			continue
		}
		y, n := day(w).ISOWeek()
		cy, cn := day(cw).ISOWeek()
		if cy != y-1 || cn != n || day(cw).Weekday() != time.Monday {
			t.Errorf("week %s (ISO %d-W%02d) paired with compare_week %s (ISO %d-W%02d)", w, y, n, cw, cy, cn)
		}
	}
}

package query

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// TestCompareWindowRules pins each rule of compareWindow, with the month ends,
// leap years, partial weeks and ISO week 53 its doc comment decides.
func TestCompareWindowRules(t *testing.T) {
	tests := []struct {
		name       string
		mode       string
		grain      fit.Grain
		start, end string
		ws, we     string
	}{
		{"days before", PreviousPeriod, fit.Daily, "2026-03-01", "2026-03-14", "2026-02-15", "2026-02-28"},
		{"one day at total grain", PreviousPeriod, fit.Total, "2026-03-15", "2026-03-15", "2026-03-14", "2026-03-14"},
		{"a month at daily grain is days, across a leap February", PreviousPeriod, fit.Daily, "2024-03-01", "2024-03-31", "2024-01-30", "2024-02-29"},
		{"a calendar month at total grain is the month before", PreviousPeriod, fit.Total, "2025-11-01", "2025-11-30", "2025-10-01", "2025-10-31"},
		{"a calendar quarter at total grain is the quarter before", PreviousPeriod, fit.Total, "2026-01-01", "2026-03-31", "2025-10-01", "2025-12-31"},
		{"part of a month at total grain is days", PreviousPeriod, fit.Total, "2025-11-01", "2025-11-29", "2025-10-03", "2025-10-31"},
		{"a calendar month at daily grain is days", PreviousPeriod, fit.Daily, "2025-11-01", "2025-11-30", "2025-10-02", "2025-10-31"},
		{"whole weeks", PreviousPeriod, fit.Weekly, "2026-03-02", "2026-03-15", "2026-02-16", "2026-03-01"},
		{"partial weeks stay partial", PreviousPeriod, fit.Weekly, "2026-03-04", "2026-03-10", "2026-02-18", "2026-02-24"},
		{"inside one week", PreviousPeriod, fit.Weekly, "2026-03-11", "2026-03-13", "2026-03-04", "2026-03-06"},
		{"whole month", PreviousPeriod, fit.Monthly, "2025-11-01", "2025-11-30", "2025-10-01", "2025-10-31"},
		{"first half of a month", PreviousPeriod, fit.Monthly, "2025-11-01", "2025-11-15", "2025-10-01", "2025-10-15"},
		{"Jan 31", PreviousPeriod, fit.Monthly, "2026-01-31", "2026-01-31", "2025-12-31", "2025-12-31"},
		{"Mar 30–31 clamps into February", PreviousPeriod, fit.Monthly, "2025-03-30", "2025-03-31", "2025-02-28", "2025-02-28"},
		{"Mar 30–31 in a leap year", PreviousPeriod, fit.Monthly, "2024-03-30", "2024-03-31", "2024-02-29", "2024-02-29"},
		{"a whole February to the whole, longer January", PreviousPeriod, fit.Monthly, "2025-02-01", "2025-02-28", "2025-01-01", "2025-01-31"},
		{"three whole months", PreviousPeriod, fit.Monthly, "2025-01-01", "2025-03-31", "2024-10-01", "2024-12-31"},
		{"two partial months", PreviousPeriod, fit.Monthly, "2025-01-15", "2025-02-10", "2024-11-15", "2024-12-10"},
		{"month ends", PreviousPeriod, fit.Monthly, "2025-03-31", "2025-04-30", "2025-01-31", "2025-02-28"},
		{"whole quarter", PreviousPeriod, fit.Quarterly, "2026-01-01", "2026-03-31", "2025-10-01", "2025-12-31"},
		{"part of a quarter", PreviousPeriod, fit.Quarterly, "2026-02-15", "2026-03-10", "2025-11-15", "2025-12-10"},
		{"two quarters", PreviousPeriod, fit.Quarterly, "2025-05-31", "2025-08-31", "2024-11-30", "2025-02-28"},
		{"same dates a year earlier", PreviousYear, fit.Daily, "2026-03-01", "2026-03-14", "2025-03-01", "2025-03-14"},
		{"Feb 29 to Feb 28", PreviousYear, fit.Daily, "2024-02-29", "2024-02-29", "2023-02-28", "2023-02-28"},
		{"whole leap February from a whole February", PreviousYear, fit.Monthly, "2025-02-01", "2025-02-28", "2024-02-01", "2024-02-29"},
		{"whole February into a shorter one", PreviousYear, fit.Total, "2024-02-01", "2024-02-29", "2023-02-01", "2023-02-28"},
		{"the single day Feb 28 stays one day", PreviousYear, fit.Daily, "2025-02-28", "2025-02-28", "2024-02-28", "2024-02-28"},
		{"part of February keeps its dates", PreviousYear, fit.Daily, "2025-02-15", "2025-02-28", "2024-02-15", "2024-02-28"},
		{"a quarter a year earlier", PreviousYear, fit.Quarterly, "2025-01-01", "2025-03-31", "2024-01-01", "2024-03-31"},
		{"ISO weeks a year earlier", PreviousYear, fit.Weekly, "2026-03-02", "2026-03-15", "2025-03-03", "2025-03-16"},
		{"partial ISO weeks a year earlier", PreviousYear, fit.Weekly, "2026-03-04", "2026-03-10", "2025-03-05", "2025-03-11"},
		{"week 53 into a year of 52", PreviousYear, fit.Weekly, "2026-12-28", "2027-01-03", "2025-12-22", "2025-12-28"},
		{"Jan 1 in the previous ISO year's week 53", PreviousYear, fit.Weekly, "2021-01-01", "2021-01-03", "2019-12-27", "2019-12-29"},
		{"week 1 into a year of 53", PreviousYear, fit.Weekly, "2021-01-04", "2021-01-10", "2019-12-30", "2020-01-05"},
	}
	for _, tt := range tests {
		ws, we := compareWindow(tt.mode, date(tt.start), date(tt.end), tt.grain)
		if got, want := span(ws, we), span(date(tt.ws), date(tt.we)); got != want {
			t.Errorf("%s: %s %s of %s..%s = %s, want %s", tt.name, tt.mode, tt.grain, tt.start, tt.end, got, want)
		}
	}
}

// TestCompareWindowProperties: over random ranges, modes and grains the window
// never overlaps the range (previous_year only over ranges shorter than a
// year, which normalization enforces), starts no later than it ends, and
// keeps what each rule promises: weekdays and day counts at weekly grain,
// whole months and quarters, the day count at daily and total grain.
func TestCompareWindowProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	origin := date("2019-01-01")
	for i := range 20000 {
		start := origin.AddDate(0, 0, r.IntN(3300))
		days := 1 + r.IntN(420)
		if r.IntN(4) == 0 {
			days = 1 + r.IntN(800)
		}
		end := start.AddDate(0, 0, days-1)
		if r.IntN(4) == 0 { // whole months
			start = firstOfMonth(start)
			end = firstOfMonth(end).AddDate(0, 1, -1)
			days = daysBetween(start, end)
		}
		mode := CompareModes[r.IntN(2)]
		g := fit.Grains[r.IntN(len(fit.Grains))]
		ws, we := compareWindow(mode, start, end, g)
		at := func() string { return mode + " " + string(g) + " of " + span(start, end) + " = " + span(ws, we) }
		if we.Before(ws) {
			t.Fatalf("case %d: %s ends before it starts", i, at())
		}
		if !civil(ws).Equal(ws) || !civil(we).Equal(we) {
			t.Fatalf("case %d: %s is not at UTC midnight", i, at())
		}
		if !we.Before(start) {
			if mode == PreviousPeriod || days < 365 {
				t.Fatalf("case %d: %s overlaps the range", i, at())
			}
			continue
		}
		n := daysBetween(ws, we)
		switch {
		case g == fit.Weekly:
			if ws.Weekday() != start.Weekday() || we.Weekday() != end.Weekday() || n != days {
				t.Fatalf("case %d: %s: not the same weekdays and %d days", i, at(), days)
			}
			if mode == PreviousPeriod && !we.Before(mondayOf(start)) {
				t.Fatalf("case %d: %s shares the range's first week", i, at())
			}
		case mode == PreviousPeriod && (g == fit.Daily || g == fit.Total && !(start.Day() == 1 && end.AddDate(0, 0, 1).Day() == 1)):
			if n != days || !we.Equal(start.AddDate(0, 0, -1)) {
				t.Fatalf("case %d: %s: not the %d days right before", i, at(), days)
			}
		case mode == PreviousPeriod:
			step := 1
			if g == fit.Quarterly {
				step = 3
			}
			if !we.Before(firstOfMonth(start)) {
				t.Fatalf("case %d: %s shares the range's first month", i, at())
			}
			if monthIndex(start)%step != monthIndex(ws)%step {
				t.Fatalf("case %d: %s: not the same place in the quarter", i, at())
			}
			if whole(start, end) && !whole(ws, we) {
				t.Fatalf("case %d: %s: whole months did not stay whole", i, at())
			}
		default: // previous_year, by dates
			if ws.Year() != start.Year()-1 || ws.Month() != start.Month() || we.Month() != end.Month() {
				t.Fatalf("case %d: %s: not the same dates a year earlier", i, at())
			}
			if whole(start, end) && !whole(ws, we) {
				t.Fatalf("case %d: %s: whole months did not stay whole", i, at())
			}
		}
	}
}

// whole reports whether [start, end] is whole calendar months.
func whole(start, end time.Time) bool {
	return start.Day() == 1 && end.AddDate(0, 0, 1).Day() == 1
}

// TestComparePair pins the day each mode pairs with a day of the range: the
// window's start with the range's start, and each first day of a period with
// the day the comparison's period begins on.
func TestComparePair(t *testing.T) {
	tests := []struct {
		name       string
		mode       string
		grain      fit.Grain
		start, end string
		day, want  string
	}{
		{"days back: the same distance from the start", PreviousPeriod, fit.Daily, "2026-09-02", "2026-11-30", "2026-10-01", "2026-07-03"},
		{"weeks back: 14 weeks touched", PreviousPeriod, fit.Weekly, "2026-09-02", "2026-11-30", "2026-10-01", "2026-06-25"},
		{"months back: the same day of the month", PreviousPeriod, fit.Monthly, "2025-01-01", "2025-03-31", "2025-02-01", "2024-11-01"},
		{"months back: a day past the shorter month clamps", PreviousPeriod, fit.Monthly, "2025-03-15", "2025-03-31", "2025-03-31", "2025-02-28"},
		{"whole months at total grain", PreviousPeriod, fit.Total, "2025-03-01", "2025-03-31", "2025-03-31", "2025-02-28"},
		{"a year back: the same date", PreviousYear, fit.Daily, "2025-02-01", "2025-02-28", "2025-02-28", "2024-02-28"},
		{"a year back: 29 February to 28 February", PreviousYear, fit.Daily, "2024-02-01", "2024-02-29", "2024-02-29", "2023-02-28"},
		{"a year back in ISO weeks: the same distance", PreviousYear, fit.Weekly, "2026-03-04", "2026-03-10", "2026-03-09", "2025-03-10"},
	}
	for _, tt := range tests {
		ws, we := compareWindow(tt.mode, date(tt.start), date(tt.end), tt.grain)
		c := &Compare{Mode: tt.mode, Start: ws, End: we}
		pair := c.Pair(date(tt.start), date(tt.end), tt.grain)
		if got := pair(date(tt.start)); !got.Equal(ws) {
			t.Errorf("%s: the start pairs with %s, the window starts %s", tt.name, got.Format(time.DateOnly), ws.Format(time.DateOnly))
		}
		if got := pair(date(tt.day)); got.Format(time.DateOnly) != tt.want {
			t.Errorf("%s: %s pairs with %s, want %s", tt.name, tt.day, got.Format(time.DateOnly), tt.want)
		}
	}
	custom := &Compare{Mode: CustomWindow, Start: date("2026-01-10"), End: date("2026-01-20")}
	if got := custom.Pair(date("2026-03-01"), date("2026-03-31"), fit.Monthly)(date("2026-03-05")); got.Format(time.DateOnly) != "2026-01-14" {
		t.Errorf("an explicit window pairs 2026-03-05 with %s, want 2026-01-14", got.Format(time.DateOnly))
	}
}

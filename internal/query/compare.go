package query

import (
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// Comparison modes: Compare.Mode.
const (
	// PreviousPeriod is the window right before the date range (see compareWindow).
	PreviousPeriod = "previous_period"
	// PreviousYear is the same dates a year earlier (ISO-week aligned at weekly grain).
	PreviousYear = "previous_year"
	// CustomWindow is an explicit {start, end} window.
	CustomWindow = "custom"
)

// CompareModes are the modes compare takes as a string.
var CompareModes = []string{PreviousPeriod, PreviousYear}

// Compare is the comparison window of a period-over-period query.
type Compare struct {
	// Mode is "previous_period", "previous_year" or "custom" (an explicit {start, end}).
	Mode       string
	Start, End time.Time // inclusive civil dates, UTC midnight, like Query.Start/End
}

// Days is the number of days in the comparison window.
func (c *Compare) Days() int { return daysBetween(c.Start, c.End) }

// CompareQuery is the query over the comparison window, for the source to run
// like any other: a copy of q with Start and End replaced by the window's,
// Preset "" and Compare nil; accounts, dimensions, metrics, grain, filters,
// sort, limit and everything else copied as they are (sort keys and filters on
// derived columns such as spend_change included: SplitDerived tells them
// apart). Its slices are its own, so the copy can be edited without touching q.
// Nil when q has no comparison.
func (q *Query) CompareQuery() *Query {
	if q.Compare == nil {
		return nil
	}
	c := *q
	c.Start, c.End = q.Compare.Start, q.Compare.End
	c.Preset = ""
	c.Compare = nil
	c.Accounts = slices.Clone(q.Accounts)
	c.Platforms = slices.Clone(q.Platforms)
	c.Dimensions = slices.Clone(q.Dimensions)
	c.Metrics = slices.Clone(q.Metrics)
	c.Filters = slices.Clone(q.Filters)
	for i := range c.Filters {
		c.Filters[i].Values = slices.Clone(c.Filters[i].Values)
	}
	c.Sort = slices.Clone(q.Sort)
	c.Changes = slices.Clone(q.Changes)
	c.Warnings = slices.Clone(q.Warnings)
	return &c
}

// compareWindow is the comparison window of mode (PreviousPeriod or
// PreviousYear) for the inclusive date range [start, end] at grain g. It is
// exact so that _meta can state the window and a re-run finds the same one.
// The rules:
//
// previous_period at daily or total grain: the n days right before, where n
// is the days of the range: [start−n, start−1]. Except at total grain over
// whole calendar months (the first of a month to the last of a month, such as
// last_month or last_quarter): then the monthly rule below, so November is
// compared with October whole, not with the 30 days before it.
//
// previous_period at weekly grain: the same weekdays N ISO weeks (Monday
// start) earlier, where N is the number of weeks the range touches:
// [start−7N, end−7N]. Partial first and last weeks stay partial the same way,
// the day count is the same, and the window ends before the range's first
// Monday.
//
// previous_period at monthly grain: the same days N months earlier, where N is
// the number of calendar months the range touches. A day past the end of the
// shorter month clamps to its last day; an end on the last day of its month
// maps to the last day of the earlier month. So Nov 1–30 → Oct 1–31, Nov 1–15
// → Oct 1–15, Jan 31 → Dec 31, Mar 30–31 → Feb 28–28 (Feb 29–29 in a leap
// year): whole months stay whole months, and the window ends in the month
// before the range's first.
//
// previous_period at quarterly grain: the same, N quarters (3N months)
// earlier, where N is the number of calendar quarters touched.
//
// previous_year at daily, monthly, quarterly and total grain: the same dates
// one year earlier. Feb 29 maps to Feb 28. An end on the last day of its month
// maps to the last day of that month a year earlier when the range holds the
// whole month (starts on or before its first day): Feb 1–28 2025 → Feb 1–29
// 2024, but the single day Feb 28 2025 → Feb 28 2024.
//
// previous_year at weekly grain: ISO-week aligned. The start's ISO week and
// weekday map to the same week and weekday of the previous ISO year (week 53
// maps to week 52 when that year has no week 53), and the window has the
// range's day count: same weekdays, same partial weeks.
//
// The window always has start ≤ end. It ends before the range starts, except
// for previous_year over a range longer than about a year: the caller rejects
// that overlap.
func compareWindow(mode string, start, end time.Time, g fit.Grain) (time.Time, time.Time) {
	if mode == PreviousYear {
		if g == fit.Weekly {
			y, w := start.ISOWeek()
			if w == 53 && isoWeeks(y-1) < 53 {
				w = 52
			}
			s := isoWeekMonday(y-1, w).AddDate(0, 0, weekdayISO(start))
			return s, s.AddDate(0, 0, daysBetween(start, end)-1)
		}
		wholeMonth := !start.After(firstOfMonth(end))
		return shiftMonths(start, 12, false), shiftMonths(end, 12, wholeMonth)
	}
	if k := monthsBack(mode, start, end, g); k > 0 {
		return shiftMonths(start, k, false), shiftMonths(end, k, true)
	}
	if g == fit.Weekly {
		n := daysBetween(mondayOf(start), mondayOf(end))/7 + 1
		return start.AddDate(0, 0, -7*n), end.AddDate(0, 0, -7*n)
	}
	n := daysBetween(start, end)
	return start.AddDate(0, 0, -n), start.AddDate(0, 0, -1)
}

// monthsBack is how many calendar months earlier mode's window lies when it
// is the range moved by whole months (previous_year outside weekly grain;
// previous_period at monthly and quarterly grain, and at total grain over
// whole months), or 0 when it is the range moved by a number of days.
func monthsBack(mode string, start, end time.Time, g fit.Grain) int {
	if mode == PreviousYear {
		if g == fit.Weekly {
			return 0
		}
		return 12
	}
	if mode != PreviousPeriod {
		return 0
	}
	if g == fit.Total && start.Day() == 1 && end.Day() == daysIn(end.Year(), end.Month()) {
		g = fit.Monthly
	}
	switch g {
	case fit.Monthly:
		return monthIndex(end) - monthIndex(start) + 1
	case fit.Quarterly:
		return 3 * (monthIndex(end)/3 - monthIndex(start)/3 + 1)
	}
	return 0
}

// Pair is the day of the comparison window paired with day d of the date
// range [start, end] asked at grain g: the day the mode moves d to — the same
// day of the month k months earlier when the window is the range moved by
// whole months (a day past the end of the shorter month clamps to its last
// day: 29 February to 28 February), else the day as far from the comparison
// window's start as d is from the range's (for an explicit window too). The
// answer cuts the comparison window's periods where Pair puts the first days
// of the range's periods, so period i of one is always period i of the other
// (fit.Comparison.Pair).
func (c *Compare) Pair(start, end time.Time, g fit.Grain) func(d time.Time) time.Time {
	k := monthsBack(c.Mode, start, end, g)
	cs := c.Start
	return func(d time.Time) time.Time {
		if k > 0 {
			return shiftMonths(d, k, false)
		}
		return cs.AddDate(0, 0, daysBetween(start, d)-1)
	}
}

// daysBetween is the number of days of the inclusive range [start, end].
func daysBetween(start, end time.Time) int { return int(end.Sub(start).Hours()/24) + 1 }

// shiftMonths moves the civil date d k months earlier. A day past the end of
// the earlier month clamps to its last day; with lastToLast, the last day of
// d's month maps to the last day of the earlier month.
func shiftMonths(d time.Time, k int, lastToLast bool) time.Time {
	first := time.Date(d.Year(), d.Month()-time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	last := daysIn(first.Year(), first.Month())
	day := min(d.Day(), last)
	if lastToLast && d.Day() == daysIn(d.Year(), d.Month()) {
		day = last
	}
	return first.AddDate(0, 0, day-1)
}

// monthIndex counts months from year 0: consecutive months differ by one.
func monthIndex(d time.Time) int { return d.Year()*12 + int(d.Month()) - 1 }

// daysIn is the number of days of month m of year y.
func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

func firstOfMonth(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// weekdayISO is 0 for Monday through 6 for Sunday.
func weekdayISO(d time.Time) int { return (int(d.Weekday()) + 6) % 7 }

// mondayOf is the Monday of d's ISO week.
func mondayOf(d time.Time) time.Time { return d.AddDate(0, 0, -weekdayISO(d)) }

// isoWeekMonday is the Monday of ISO week w of ISO year y: week 1 is the week
// that holds January 4.
func isoWeekMonday(y, w int) time.Time {
	return mondayOf(time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)).AddDate(0, 0, 7*(w-1))
}

// isoWeeks is the number of ISO weeks of ISO year y (52 or 53): December 28
// is always in the year's last week.
func isoWeeks(y int) int {
	_, w := time.Date(y, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

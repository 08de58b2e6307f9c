package fit

import (
	"fmt"
	"slices"
	"time"
)

// Layouts of the time labels: a day and an ISO week's Monday are YYYY-MM-DD, a
// month is YYYY-MM, a calendar quarter YYYY-Qn ("2026-Q4", Q1 = January to
// March). Labels of one grain sort chronologically as strings, and each names
// its period unambiguously: a quarter label is not a date, so it cannot be
// read as the one day it starts on.
const (
	dayLayout   = "2006-01-02"
	monthLayout = "2006-01"
)

// periodOf returns the label of the period at grain g containing the day d
// ("2026-03-02" for the ISO week of 2026-03-04; "2026-03" for monthly;
// "2026-Q1" for quarterly; "" for Total). The day is d's calendar date in d's
// location. An unknown grain gives "".
func periodOf(g Grain, d time.Time) string {
	y, m, day := d.Date()
	switch g {
	case Daily:
		return time.Date(y, m, day, 0, 0, 0, 0, time.UTC).Format(dayLayout)
	case Weekly:
		back := (int(d.Weekday()) + 6) % 7 // days since Monday
		return time.Date(y, m, day-back, 0, 0, 0, 0, time.UTC).Format(dayLayout)
	case Monthly:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Format(monthLayout)
	case Quarterly:
		if y < 0 || y > 9999 {
			return "" // not a four-digit year: no label that sorts
		}
		return fmt.Sprintf("%04d-Q%d", y, quarterOf(m))
	}
	return ""
}

// quarterOf is the calendar quarter (1–4) month m lies in.
func quarterOf(m time.Month) int { return (int(m)-1)/3 + 1 }

// ParsePeriod parses a time label at grain g (as periodOf writes it) into the
// first day of its period, in UTC. It accepts only that grain's layout, so a
// label of another grain is an error rather than a wrong period; a weekly
// label must be a Monday.
func ParsePeriod(g Grain, label string) (time.Time, error) {
	switch g {
	case Daily:
		return time.Parse(dayLayout, label)
	case Weekly:
		d, err := time.Parse(dayLayout, label)
		if err == nil && d.Weekday() != time.Monday {
			return time.Time{}, fmt.Errorf("fit: week %q does not start on a Monday", label)
		}
		return d, err
	case Monthly:
		return time.Parse(monthLayout, label)
	case Quarterly:
		if len(label) != 7 || label[4:6] != "-Q" || label[6] < '1' || label[6] > '4' {
			return time.Time{}, fmt.Errorf("fit: quarter %q is not YYYY-Qn (n from 1 to 4)", label)
		}
		y, err := time.Parse("2006", label[:4])
		if err != nil {
			return time.Time{}, fmt.Errorf("fit: quarter %q: %w", label, err)
		}
		return y.AddDate(0, 3*int(label[6]-'1'), 0), nil
	}
	return time.Time{}, fmt.Errorf("fit: %s has no time labels", g)
}

// labelLayout describes grain g's labels, for errors.
func labelLayout(g Grain) string {
	switch g {
	case Monthly:
		return "YYYY-MM month"
	case Quarterly:
		return "YYYY-Qn quarter"
	}
	return "YYYY-MM-DD date"
}

// PartialPeriods reports whether the first and the last period at grain g are cut by
// the inclusive date range [start, end] (e.g. weekly, start on a Wednesday ⇒ first is partial).
// First and last may be the same period. Days and Total are never cut; an empty
// range (end before start) reports false, false. Dates are calendar dates in the
// location of each time.
func PartialPeriods(g Grain, start, end time.Time) (first, last bool) {
	sy, sm, sd := start.Date()
	ey, em, ed := end.Date()
	s := time.Date(sy, sm, sd, 0, 0, 0, 0, time.UTC)
	e := time.Date(ey, em, ed, 0, 0, 0, 0, time.UTC)
	if e.Before(s) {
		return false, false
	}
	next := e.AddDate(0, 0, 1)
	switch g {
	case Weekly:
		return s.Weekday() != time.Monday, e.Weekday() != time.Sunday
	case Monthly:
		return s.Day() != 1, next.Day() != 1
	case Quarterly:
		startsQuarter := func(d time.Time) bool { return d.Day() == 1 && (d.Month()-1)%3 == 0 }
		return !startsQuarter(s), !startsQuarter(next)
	}
	return false, false
}

// PeriodWord names one period of grain g ("month", "quarter"), or "date range"
// for Total: how warnings speak of the rows of a grain. Weeks, months and
// quarters are named as their time columns are.
func (g Grain) PeriodWord() string {
	switch w := g.TimeColumn(); {
	case g == Daily:
		return "day"
	case w != "":
		return w
	}
	return "date range"
}

// skipGrain reports whether the pipeline passes over the coarser grain g, both
// when it coarsens and when it costs narrower queries: quarterly rows over a
// date range inside one quarter are the totals plus a constant column (and,
// from a source that must be asked again, one more call), so it goes on to
// total. Weekly and monthly are never skipped.
func (p *pipeline) skipGrain(g Grain) bool {
	return SkipsGrain(g, p.opt.Start, p.opt.End, p.columns)
}

// SkipsGrain is the pipeline's rule for passing over grain g when coarsening
// an answer with columns cols for the date range start…end, for a caller that
// chooses a grain to ask its source for: quarterly, when the range lies
// inside one quarter (see skipGrain) or a distinct count is asked for (reach
// is stored per week, month and range, never per quarter: a quarterly answer
// would leave it out where the total keeps it).
func SkipsGrain(g Grain, start, end time.Time, cols []*Column) bool {
	if g != Quarterly {
		return false
	}
	if slices.ContainsFunc(cols, func(c *Column) bool { return c.Role == RoleMetric && c.Aggregation == NonAdditive && !c.Hidden }) {
		return true
	}
	return !start.IsZero() && !end.IsZero() && periodOf(g, start) == periodOf(g, end)
}

package query

import (
	"fmt"
	"strings"
	"time"
)

// compareModeSpellings are the folded spellings of the comparison modes.
var compareModeSpellings = map[string]string{
	"previousperiod": PreviousPeriod, "priorperiod": PreviousPeriod, "periodoverperiod": PreviousPeriod, "pop": PreviousPeriod,
	"previousyear": PreviousYear, "prioryear": PreviousYear, "lastyear": PreviousYear, "yearoveryear": PreviousYear, "yoy": PreviousYear,
}

// compare resolves the comparison window into n.q.Compare. It runs after the
// date range and the grain are known (dimension sanitization can set the
// grain, and the window follows from both); when either failed, only the
// argument's own form is checked.
func (n *normalizer) compare(c *CompareArg) {
	if c == nil {
		return
	}
	n.comparing = true
	ready := !n.q.Start.IsZero() && n.q.Grain.Valid()
	if c.Window != nil {
		start, end, ok := n.compareDates(c.Window)
		if ok && ready {
			n.customWindow(start, end)
		}
		return
	}
	mode, ok := compareModeSpellings[foldName(c.Mode)]
	if !ok {
		p := Problem{Field: "compare", Value: c.Mode, Problem: "unknown comparison", Valid: CompareModes,
			Closest: closestStrings(c.Mode, CompareModes, 2),
			Fix:     `use previous_period, previous_year, or an explicit window {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`}
		if strings.TrimSpace(c.Mode) == "" {
			p.Problem, p.Value = "is an empty string", nil
		}
		n.problem(p)
		return
	}
	if mode != c.Mode {
		n.change(Change{Type: ChangeValueNormalized, Field: "compare", From: c.Mode, To: mode,
			Detail: fmt.Sprintf("compare %q read as %q", c.Mode, mode)})
	}
	if !ready {
		return
	}
	start, end := compareWindow(mode, n.q.Start, n.q.End, n.q.Grain)
	if mode == PreviousYear && !end.Before(n.q.Start) {
		n.problem(Problem{Field: "compare", Value: mode,
			Problem: fmt.Sprintf("the date range %s is longer than a year: the same dates a year earlier (%s) overlap it",
				span(n.q.Start, n.q.End), span(start, end)),
			Fix: "shorten the date range to a year or less, or use previous_period"})
		return
	}
	if n.compareSpanOK(start, end) {
		n.q.Compare = &Compare{Mode: mode, Start: start, End: end}
	}
}

// compareDates parses an explicit window's dates.
func (n *normalizer) compareDates(w *DateRange) (start, end time.Time, ok bool) {
	start, err1 := ParseDate(strings.TrimSpace(w.Start))
	if err1 != nil {
		n.problem(Problem{Field: "compare.start", Value: w.Start, Problem: "is not a date in YYYY-MM-DD form",
			Fix: "write dates like 2025-01-01"})
	}
	end, err2 := ParseDate(strings.TrimSpace(w.End))
	if err2 != nil {
		n.problem(Problem{Field: "compare.end", Value: w.End, Problem: "is not a date in YYYY-MM-DD form",
			Fix: "write dates like 2025-01-31"})
	}
	if err1 != nil || err2 != nil {
		return start, end, false
	}
	if start.After(end) {
		n.problem(Problem{Field: "compare", Value: span(start, end),
			Problem: "start is after end", Fix: "swap start and end; both dates are inclusive"})
		return start, end, false
	}
	return start, end, true
}

// customWindow accepts an explicit window that shares no day with the date
// range. A window before the data or in the future is not an error: the
// answer says what data each window has.
func (n *normalizer) customWindow(start, end time.Time) {
	if !end.Before(n.q.Start) && !start.After(n.q.End) {
		n.problem(Problem{Field: "compare", Value: span(start, end),
			Problem: fmt.Sprintf("overlaps the date range %s: the two windows must not share a day", span(n.q.Start, n.q.End)),
			Fix: fmt.Sprintf("choose a window that ends before %s or starts after %s, or use previous_period",
				n.q.Start.Format(time.DateOnly), n.q.End.Format(time.DateOnly))})
		return
	}
	if n.compareSpanOK(start, end) {
		n.q.Compare = &Compare{Mode: CustomWindow, Start: start, End: end}
	}
}

// compareSpanOK applies date_range's span guardrail to the comparison window:
// it is a second query over as many days.
func (n *normalizer) compareSpanOK(start, end time.Time) bool {
	if days := daysBetween(start, end); days > n.opt.MaxSpanDays {
		n.problem(Problem{Field: "compare", Value: fmt.Sprintf("%s (%d days)", span(start, end), days),
			Problem: fmt.Sprintf("spans more than %d days, the longest range one query may aggregate", n.opt.MaxSpanDays),
			Fix:     "choose a shorter window, or shorten date_range"})
		return false
	}
	return true
}

// span writes an inclusive range of dates.
func span(start, end time.Time) string {
	return start.Format(time.DateOnly) + " to " + end.Format(time.DateOnly)
}

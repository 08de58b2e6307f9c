package oracle

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Comparison modes, as the query tool takes them (docs/query.md, "Comparing
// periods").
const (
	PreviousPeriod = "previous_period"
	PreviousYear   = "previous_year"
)

// CompareWindow is the comparison window of mode for the inclusive range
// start…end asked at grain g, computed from the rules docs/query.md and
// internal/query's compareWindow state, written here again in other terms
// (calendar arithmetic on year/month/day, ISO weeks found by walking the
// days) so that a slip in either shows as a difference.
func CompareWindow(mode string, start, end time.Time, g string) (time.Time, time.Time) {
	days := dayCount(start, end)
	if mode == PreviousYear {
		if g == "weekly" {
			year, week := start.ISOWeek()
			if week == 53 && !hasWeek53(year-1) {
				week = 52
			}
			s := isoDay(year-1, week, start.Weekday())
			return s, s.AddDate(0, 0, days-1)
		}
		s := civil(start.Year()-1, start.Month(), start.Day())
		e := civil(end.Year()-1, end.Month(), end.Day())
		// A range holding its end's whole month keeps that month whole.
		if isLastOfMonth(end) && !start.After(civil(end.Year(), end.Month(), 1)) {
			e = civil(end.Year()-1, end.Month(), 31)
		}
		return s, e
	}
	if g == "total" && start.Day() == 1 && isLastOfMonth(end) {
		g = "monthly" // whole months compare with as many whole months
	}
	switch g {
	case "weekly":
		n := weeksTouched(start, end)
		return start.AddDate(0, 0, -7*n), end.AddDate(0, 0, -7*n)
	case "monthly", "quarterly":
		per := 1
		if g == "quarterly" {
			per = 3
		}
		n := (monthNumber(end)/per - monthNumber(start)/per + 1) * per
		s := monthsBack(start, n)
		e := monthsBack(end, n)
		if isLastOfMonth(end) {
			e = lastOfMonth(e)
		}
		return s, e
	}
	return start.AddDate(0, 0, -days), start.AddDate(0, 0, -1)
}

// civil is the date y-m-d, a day past the month's end clamped to its last day.
func civil(y int, m time.Month, d int) time.Time {
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return first.AddDate(0, 0, min(d, lastOfMonth(first).Day())-1)
}

func lastOfMonth(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, -1)
}

func isLastOfMonth(t time.Time) bool { return t.AddDate(0, 0, 1).Day() == 1 }

// monthNumber counts calendar months: consecutive months differ by one.
func monthNumber(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }

// monthsBack is the same day n calendar months before t, clamped.
func monthsBack(t time.Time, n int) time.Time {
	k := monthNumber(t) - n
	return civil(k/12, time.Month(k%12+1), t.Day())
}

// weeksTouched is how many ISO weeks (Monday to Sunday) start…end touches.
func weeksTouched(start, end time.Time) int {
	n := 0
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		if d.Equal(start) || d.Weekday() == time.Monday {
			n++
		}
	}
	return n
}

// hasWeek53 reports whether ISO year y has a week 53.
func hasWeek53(y int) bool {
	for d := time.Date(y, 12, 20, 0, 0, 0, 0, time.UTC); d.Year() == y; d = d.AddDate(0, 0, 1) {
		if yy, w := d.ISOWeek(); yy == y && w == 53 {
			return true
		}
	}
	return false
}

// isoDay is the day of weekday wd in ISO week w of ISO year y, found by
// walking the days around that year.
func isoDay(y, w int, wd time.Weekday) time.Time {
	for d := time.Date(y-1, 12, 20, 0, 0, 0, 0, time.UTC); ; d = d.AddDate(0, 0, 1) {
		if yy, ww := d.ISOWeek(); yy == y && ww == w && d.Weekday() == wd {
			return d
		}
	}
}

func dayCount(start, end time.Time) int { return int(math.Round(end.Sub(start).Hours()/24)) + 1 }

// Periods are the labels of the periods of grain g that start…end touches, in
// order (one "" for total): the positions a comparison pairs.
func Periods(g string, start, end time.Time) []string {
	if g == "total" || g == "" {
		return []string{""}
	}
	var out []string
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		if p := Period(g, d); len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// Paired is one row of a comparison: the same dimension values at the same
// period position in both windows. Cur or Base is nil when the row is absent
// from that window.
type Paired struct {
	Pos                int
	Period, BasePeriod string // the labels of position Pos in each window ("" past a window's end)
	Dims               []string
	Cur, Base          *Row
}

// Status is compare_status: both, new (only in the current window) or
// stopped (only in the comparison window).
func (p *Paired) Status() string {
	switch {
	case p.Cur == nil:
		return "stopped"
	case p.Base == nil:
		return "new"
	}
	return "both"
}

// Key identifies a paired row: its dimension values and position.
func (p *Paired) Key() string { return strings.Join(p.Dims, "\x1f") + "\x1f" + strconv.Itoa(p.Pos) }

// Comparison is the oracle's answer to a comparison at one grain.
type Comparison struct {
	G                       string
	Cur, Base               *Query // the two windows' queries (Base: q over the comparison window)
	CurPeriods, BasePeriods []string
	// Rows are the paired rows (step 1's rows removed from each window first).
	Rows []*Paired
	// CurAll and BaseAll are every aggregated row of each window, step 1's
	// included; CurRemoved and BaseRemoved are step 1's.
	CurAll, BaseAll         []*Row
	CurRemoved, BaseRemoved []*Row
}

// ComparisonPeriods are the comparison window bs…be's periods at grain g, by
// position, and the position of each of its days ("YYYY-MM-DD"), as
// docs/query.md ("Comparing periods") states them: each day of the range
// q.Start…q.End (asked at q.Grain with mode) is paired with a day of the
// window — the same day of the month k months earlier when the window is the
// range moved by whole months, else the day as far from bs — and the window's
// period i runs from the day paired with the first day of the range's period
// i to the day before the next. Worked out here day by day: each day of the
// window goes to the first position whose paired first day is the latest
// one not after it. A period is labelled as a calendar period when it is the
// window's part of one, else "first..last"; "" when it holds no day.
func ComparisonPeriods(q *Query, mode string, bs, be time.Time, g string) ([]string, map[string]int) {
	cur := Periods(g, q.Start, q.End)
	firsts := make([]time.Time, 0, len(cur))
	for day := q.Start; !day.After(q.End); day = day.AddDate(0, 0, 1) {
		if len(firsts) == 0 || Period(g, day) != Period(g, firsts[len(firsts)-1]) {
			firsts = append(firsts, day)
		}
	}
	byMonths := mode == PreviousYear && q.Grain != "weekly" ||
		mode == PreviousPeriod && (q.Grain == "monthly" || q.Grain == "quarterly" ||
			q.Grain == "total" && q.Start.Day() == 1 && isLastOfMonth(q.End))
	k := monthNumber(q.Start) - monthNumber(bs)
	paired := func(day time.Time) time.Time {
		if byMonths {
			return monthsBack(day, k)
		}
		return bs.AddDate(0, 0, dayCount(q.Start, day)-1)
	}
	starts := make([]time.Time, len(firsts))
	for i, f := range firsts {
		starts[i] = paired(f)
	}
	if len(starts) > 0 {
		starts[0] = bs
	}
	pos := map[string]int{}
	days := make([][]time.Time, len(cur))
	for day := bs; !day.After(be); day = day.AddDate(0, 0, 1) {
		best := 0
		for i, s := range starts {
			if !s.After(day) && s.After(starts[best]) {
				best = i
			}
		}
		pos[day.Format(time.DateOnly)] = best
		days[best] = append(days[best], day)
	}
	labels := make([]string, len(cur))
	for i, ds := range days {
		if len(ds) == 0 || g == "total" || g == "" {
			continue
		}
		first, last := ds[0], ds[len(ds)-1]
		ps := PeriodStart(g, first)
		pe := PeriodEnd(g, ps)
		if ps.Before(bs) {
			ps = bs
		}
		if pe.After(be) {
			pe = be
		}
		if first.Equal(ps) && last.Equal(pe) {
			labels[i] = Period(g, first)
		} else {
			labels[i] = first.Format(time.DateOnly) + ".." + last.Format(time.DateOnly)
		}
	}
	return labels, pos
}

// Compare aggregates q and q over the window bs…be (chosen by mode) at grain
// g — the window cut into the periods paired with the range's
// (ComparisonPeriods) — removes from each the rows whose user dimensions are
// all empty (step 1), and pairs them on equal dimension values and period
// position.
func (d *Data) Compare(q *Query, mode string, bs, be time.Time, g string, userDims []string) *Comparison {
	base := *q
	base.Start, base.End = bs, be
	basePeriods, pos := ComparisonPeriods(q, mode, bs, be, g)
	c := &Comparison{G: g, Cur: q, Base: &base,
		CurPeriods: Periods(g, q.Start, q.End), BasePeriods: basePeriods}
	c.CurAll = d.Aggregate(q, g)
	c.BaseAll = d.AggregateBy(&base, func(day time.Time) string { return basePeriods[pos[day.Format(time.DateOnly)]] })
	index := map[string]*Paired{}
	side := func(rows []*Row, periods []string, isBase bool) []*Row {
		pos := map[string]int{}
		for i, p := range periods {
			pos[p] = i
		}
		var removed []*Row
		for _, r := range rows {
			if allEmpty(q, r, userDims) {
				removed = append(removed, r)
				continue
			}
			i, ok := pos[r.Period]
			if g == "total" || g == "" {
				i, ok = 0, true
			}
			if !ok {
				panic("oracle: a row outside its window: " + r.Period)
			}
			p := &Paired{Pos: i, Dims: r.Dims}
			if x, ok := index[p.Key()]; ok {
				p = x
			} else {
				index[p.Key()] = p
				c.Rows = append(c.Rows, p)
			}
			if isBase {
				p.Base = r
			} else {
				p.Cur = r
			}
		}
		return removed
	}
	c.CurRemoved = side(c.CurAll, c.CurPeriods, false)
	c.BaseRemoved = side(c.BaseAll, c.BasePeriods, true)
	for _, p := range c.Rows {
		if p.Pos < len(c.CurPeriods) {
			p.Period = c.CurPeriods[p.Pos]
		}
		if p.Pos < len(c.BasePeriods) {
			p.BasePeriod = c.BasePeriods[p.Pos]
		}
	}
	return c
}

// allEmpty: every user dimension of r is empty (step 1 removes the row).
func allEmpty(q *Query, r *Row, userDims []string) bool {
	if len(userDims) == 0 {
		return false
	}
	for _, u := range userDims {
		for i, dim := range q.Dims {
			if dim == u && r.Dims[i] != "" {
				return false
			}
		}
	}
	return true
}

// Derived splits a derived column's name (spend_change_pct) into its metric
// and suffix ("_compare", "_change", "_change_pct"); suffix is "" for a
// metric's own name.
func Derived(field string) (metric, suffix string) {
	for _, s := range []string{"_change_pct", "_change", "_compare"} {
		if m, ok := strings.CutSuffix(field, s); ok && isBaseMetric(m) {
			return m, s
		}
	}
	return field, ""
}

func isBaseMetric(f string) bool {
	return Additive[f] || f == "reach" || f == "frequency" ||
		map[string]bool{"ctr": true, "cpc": true, "cpm": true, "cpa": true, "roas": true, "conversion_rate": true}[f]
}

// Value is field of the paired row p: a metric in the current window (m), in
// the comparison window (m_compare), their difference (m_change) or the
// difference in percent of the comparison value (m_change_pct); NaN for
// empty. A window the row is absent from has 0 for a count (empty when the
// other window's value is empty: not reported there) and empty for a ratio.
func (c *Comparison) Value(d *Data, p *Paired, field string) float64 {
	m, suffix := Derived(field)
	cv, bv := c.sides(d, p, m)
	switch suffix {
	case "":
		return cv
	case "_compare":
		return bv
	case "_change":
		return cv - bv // NaN when either is
	}
	if bv == 0 {
		return math.NaN()
	}
	return (cv - bv) / bv * 100
}

// sides are metric m's values of p in each window.
func (c *Comparison) sides(d *Data, p *Paired, m string) (float64, float64) {
	one := func(q *Query, r *Row) float64 {
		if r == nil {
			return math.NaN()
		}
		if m == "reach" || m == "frequency" {
			reach, single, ok := d.ReachOf(q, r, c.G)
			if !ok || !single {
				return math.NaN()
			}
			if m == "frequency" {
				return r.Sums.Impressions() / float64(reach)
			}
			return float64(reach)
		}
		return Value(m, &r.Sums)
	}
	cv, bv := one(c.Cur, p.Cur), one(c.Base, p.Base)
	count := Additive[m] || m == "reach"
	if p.Cur == nil && count && !math.IsNaN(bv) {
		cv = 0
	}
	if p.Base == nil && count && !math.IsNaN(cv) {
		bv = 0
	}
	return cv, bv
}

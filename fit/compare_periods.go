package fit

import (
	"fmt"
	"slices"
	"time"
)

// span is one period of the comparison window at a grain: the days paired
// with one period of the current window, and its label ("" when it holds no
// day).
type span struct {
	start, end time.Time
	label      string
}

// SpanSeparator joins the first and last day of a comparison period that is
// not one calendar period: "2026-06-04..2026-07-02".
const SpanSeparator = ".."

// spans cuts the comparison window into one period per period of the current
// window cs…ce at grain g: period i begins on the day Pair gives for the
// first day of the current window's period i, and ends the day before period
// i+1 begins (the last on the window's last day). So period i of one window
// always faces period i of the other, however the two windows fall on the
// calendar: a row is never new or stopped because one window's leftover day
// made a period of its own. A period that is a calendar period at g (or the
// window's part of one, as a partial first or last period is) carries that
// period's label; any other carries its dates joined by SpanSeparator. A
// period no day is paired with (the current window is longer, or two of its
// periods start on days paired with the same day) holds no day and has label "".
func (c *Comparison) spans(g Grain, cs, ce time.Time) []span {
	if g == Total || g == "" {
		return []span{{start: c.Start, end: c.End}}
	}
	pair := c.Pair
	if pair == nil {
		pair = func(d time.Time) time.Time { return c.Start.Add(d.Sub(cs)) }
	}
	var starts []time.Time // of each current period, paired
	prev := ""
	for d := cs; !d.After(ce); d = d.AddDate(0, 0, 1) {
		if l := periodOf(g, d); d.Equal(cs) || l != prev {
			prev = l
			p := c.Start
			if !d.Equal(cs) {
				p = pair(d)
			}
			starts = append(starts, p)
		}
	}
	out := make([]span, len(starts))
	last := -1 // the last period holding days
	for i, s := range starts {
		if s.After(c.End) || (last >= 0 && !s.After(out[last].start)) {
			continue
		}
		if last >= 0 {
			out[last].end = s.AddDate(0, 0, -1)
		}
		out[i].start, out[i].end = s, c.End
		last = i
	}
	for i := range out {
		if !out[i].start.IsZero() {
			out[i].label = c.spanLabel(g, out[i].start, out[i].end)
		}
	}
	return out
}

// spanLabel labels the comparison period s…e at grain g: the calendar
// period's label when s…e is the window's part of one, else the dates.
func (c *Comparison) spanLabel(g Grain, s, e time.Time) string {
	ps, pe := c.clip(periodBounds(g, s))
	if ps.Equal(s) && pe.Equal(e) {
		return periodOf(g, s)
	}
	return s.Format(time.DateOnly) + SpanSeparator + e.Format(time.DateOnly)
}

// periodBounds are the first and last day of the period of grain g holding d.
func periodBounds(g Grain, d time.Time) (time.Time, time.Time) {
	s, err := ParsePeriod(g, periodOf(g, d))
	if err != nil {
		return d, d
	}
	switch g {
	case Weekly:
		return s, s.AddDate(0, 0, 6)
	case Monthly:
		return s, s.AddDate(0, 1, -1)
	case Quarterly:
		return s, s.AddDate(0, 3, -1)
	}
	return s, s
}

// pairPeriods is the comparison window's table t (at its own grain, which
// may be finer than g) with its rows merged into the comparison periods sp
// at grain g, labelled as they are; nil when a row's period straddles two of
// them (t's rows cannot be cut there: the comparison window must be asked at
// a finer grain). Merged rows add up as Rollup's do, and a metric that cannot
// be added up (reach) is left out, named in dropped; rows whose period is
// one of sp already are only relabelled.
func (c *Comparison) pairPeriods(t *Table, g Grain, sp []span) (*Table, []string, error) {
	from := grainOf(t)
	if g == Total {
		if from == Total {
			return t, nil, nil
		}
		return Rollup(t, Total)
	}
	var tc *Column
	for _, col := range t.Columns {
		if col.Role == RoleTime {
			tc = col
		}
	}
	if tc == nil {
		return nil, nil, nil // a total cannot be cut into periods
	}
	at := map[string]int{} // t's label → its period in sp
	same := from == g
	labels := make([]string, t.Len())
	for r, l := range tc.Strings {
		i, ok := at[l]
		if !ok {
			d, err := ParsePeriod(from, l)
			if err != nil {
				return nil, nil, fmt.Errorf("fit: comparison window: %w", err)
			}
			s, e := c.clip(periodBounds(from, d))
			i = slices.IndexFunc(sp, func(x span) bool { return x.label != "" && !s.Before(x.start) && !s.After(x.end) })
			if i < 0 || e.After(sp[i].end) {
				return nil, nil, nil
			}
			at[l] = i
			same = same && sp[i].label == l
		}
		labels[r] = sp[i].label
	}
	if same {
		return t, nil, nil
	}
	// Merge by period: the period becomes a dimension, the time column a
	// constant, and the table rolls up to a total by its dimensions.
	keyed := &Table{Grain: from, RowsBeforeLimit: t.RowsBeforeLimit, Notices: t.Notices}
	for _, col := range t.Columns {
		if col == tc {
			keyed.Columns = append(keyed.Columns, &Column{Name: g.TimeColumn(), Role: RoleDimension, Unit: true, Strings: labels})
			continue
		}
		keyed.Columns = append(keyed.Columns, col)
	}
	constant := make([]string, t.Len())
	for r := range constant {
		constant[r] = tc.Strings[0]
	}
	keyed.Columns = append(keyed.Columns, &Column{Name: "\x00period", Role: RoleTime, Strings: constant})
	out, dropped, err := Rollup(keyed, Total)
	if err != nil {
		return nil, nil, err
	}
	out.Grain = g
	for _, col := range out.Columns {
		if col.Name == g.TimeColumn() {
			col.Role, col.Unit = RoleTime, tc.Unit
		}
	}
	return out, dropped, nil
}

// clip is the part of the days s…e inside the comparison window.
func (c *Comparison) clip(s, e time.Time) (time.Time, time.Time) {
	if s.Before(c.Start) {
		s = c.Start
	}
	if e.After(c.End) {
		e = c.End
	}
	return s, e
}

// spanLabels are the labels of sp, in order.
func spanLabels(sp []span) []string {
	out := make([]string, len(sp))
	for i, s := range sp {
		out[i] = s.label
	}
	return out
}

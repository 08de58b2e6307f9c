package fit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Comparison asks Fit to answer the table (the current window, Options.Start
// to Options.End) side by side with the same query over another window: a
// period-over-period answer. The pipeline joins the two tables row by row —
// equal dimension values and, at a time grain, the same position: period i
// of the current window against the comparison window's days paired with it
// (spans) — and fits the joined table as it fits any
// other: each coarser grain is made by coarsening both windows alike (rolled
// up, or asked of the source again) and joining them anew, never by rolling
// up joined rows, whose periods would no longer line up.
//
// For each visible metric m the joined table has m (the current window), m
// + CompareSuffix, m + ChangeSuffix (current less comparison) and m +
// ChangePctSuffix (the change as a percentage of the comparison value; empty
// when that is zero or empty). Ratios are recomputed in each window from
// their own parts, and their change is the difference of the two ratios.
// A row present in one window only is kept, its missing side zero for
// counts (empty where the other side is empty: a metric that side's data
// does not report) and empty for ratios; StatusColumn says which it is.
// A non-additive metric is compared only at a grain where both windows have
// it.
type Comparison struct {
	// Base is the comparison window's table: the same columns as the current
	// table, at the same grain.
	Base *Table
	// Start and End are the comparison window's inclusive dates.
	Start, End time.Time
	// Mode names how the window was chosen ("previous_period"), for _meta.
	Mode string
	// Pair is the day of the comparison window paired with day d of the
	// current window (the mode's rule: internal/query's Compare.Pair); nil
	// pairs the k-th day of one window with the k-th of the other. The
	// comparison window's periods are cut where Pair puts the first days of
	// the current window's periods (spans).
	Pair func(d time.Time) time.Time
	// Requery fetches the comparison window afresh at a coarser grain, as
	// Options.Requery does for the current one.
	Requery func(ctx context.Context, g Grain) (*Table, error)
	// Keep, when set, selects the joined rows at each grain returned (a
	// filter on compared values, such as spend_change < 0); Limit, when
	// positive, keeps the first Limit joined rows in Options.Sort order
	// (within each value of Dialect.LimitPartition). Selection says both in
	// words for _meta.
	Keep      func(t *Table, row int) bool
	Limit     int
	Selection string
	// Reads are the compared columns the selection and Options.Sort read
	// (spend_change, frequency_change_pct, …). When one is left out at the
	// grain returned (metric_not_compared, or metric_unavailable_at_grain),
	// the selection is not applied to a column that is not there — a filter
	// would keep no row, a top N would take rows in no stated order: Keep
	// must pass a filter whose column t lacks, a sort key on it is dropped
	// with the limit, and a selection_not_applied warning says so.
	Reads []string
}

// The names the joined table gives its columns, after the current window's
// column name.
const (
	CompareSuffix   = "_compare"
	ChangeSuffix    = "_change"
	ChangePctSuffix = "_change_pct"
	// ComparePrefix names the comparison window's time column after the
	// current one's: compare_week.
	ComparePrefix = "compare_"
	// StatusColumn says where a joined row comes from: StatusBoth,
	// StatusNew (only in the current window) or StatusStopped (only in the
	// comparison window).
	StatusColumn  = "compare_status"
	StatusBoth    = "both"
	StatusNew     = "new"
	StatusStopped = "stopped"
)

// ComparisonMeta is _meta.comparison: both windows exactly, how rows are
// aligned, and how many rows of the answer are in both windows, only in the
// current one (new), or only in the comparison one (stopped).
type ComparisonMeta struct {
	Mode      string `json:"mode,omitempty"`
	Current   Window `json:"current"`
	Compare   Window `json:"compare"`
	Alignment string `json:"alignment"`
	Columns   string `json:"columns,omitempty"`
	Both      int    `json:"rows_in_both"`
	New       int    `json:"rows_new"`
	Stopped   int    `json:"rows_stopped"`
}

// Window is one window of a comparison: inclusive dates and its number of days.
type Window struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Days  int    `json:"days"`
}

func windowOf(start, end time.Time) Window {
	return Window{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly), Days: int(end.Sub(start).Hours()/24) + 1}
}

// comparing is the state of a comparison answer: both windows' tables after
// step 1, at the requested grain.
type comparing struct {
	cmp       *Comparison
	cur, base *Table
	// asked is the current window's table as the source returned it, step
	// 1's rows included (Comparison.Base is the comparison window's).
	asked *Table
}

// fitCompare is Fit for a Comparison: step 1 on both windows, then the joined
// table encoded, coarsened (both windows alike) and summarized.
func fitCompare(ctx context.Context, t *Table, opt Options) (*Response, error) {
	cmp := opt.Compare
	if cmp.Base == nil {
		return nil, fmt.Errorf("fit: a comparison needs the comparison window's table")
	}
	if err := cmp.Base.Validate(); err != nil {
		return nil, fmt.Errorf("fit: comparison window: %w", err)
	}
	if grainOf(cmp.Base) != grainOf(t) {
		return nil, fmt.Errorf("fit: comparison window at %s grain, current window at %s", grainOf(cmp.Base), grainOf(t))
	}
	if opt.Start.IsZero() || opt.End.IsZero() || cmp.Start.IsZero() || cmp.End.IsZero() {
		return nil, fmt.Errorf("fit: a comparison needs both windows' dates (Options.Start/End, Comparison.Start/End)")
	}
	// The selection is the comparison's: rows are selected after the join.
	opt.Selection = ""
	p, err := newPipeline(t, opt)
	if err != nil {
		return nil, err
	}
	cur := p.filter(t, &p.meta)
	base := p.filterCompare(cmp.Base, &p.meta)
	p.cmp = &comparing{cmp: cmp, cur: cur, base: base, asked: t}
	p.meta.Warnings = appendNew(p.meta.Warnings, noticeWarnings(cmp.Base.Notices)...)
	p.meta.Warnings = append(p.meta.Warnings, p.windowWarnings()...)

	meta := p.meta
	paired, _, err := p.baseAt(ctx, p.requested, &meta)
	if err != nil {
		return nil, err
	}
	var joined *Table
	if paired != nil {
		if joined, meta, err = p.compareAt(p.requested, cur, paired, meta); err != nil {
			return nil, err
		}
		p.meta = meta
		if resp, ok, err := p.render(joined, meta); err != nil || ok {
			return resp, err
		}
	}
	if resp, err := p.coarsenEach(ctx, p.requested, func(g Grain) (*Table, Meta, error) { return p.coarsenCompare(ctx, g) }); err != nil || resp != nil {
		return resp, err
	}
	if joined == nil {
		// The comparison window's rows could not be cut at the requested
		// grain: the summary describes the comparison of the totals.
		curTotal, _, err := Rollup(p.cmp.cur, Total)
		if err != nil {
			return nil, err
		}
		baseTotal, _, err := Rollup(p.cmp.base, Total)
		if err != nil {
			return nil, err
		}
		if joined, _, err = p.compareAt(Total, curTotal, baseTotal, p.meta); err != nil {
			return nil, err
		}
	}
	return p.tooLarge(ctx, joined)
}

// filterCompare is step 1 on the comparison window: its empty-dimension rows
// are removed and reported as the current window's are. The all-zero check
// is the current window's alone.
func (p *pipeline) filterCompare(t *Table, meta *Meta) *Table {
	kept, removed, _ := dropEmptyDimensionRows(t)
	if len(removed) > 0 {
		o := p.removal(t, t, removed)
		o.Detail += " (comparison window)"
		meta.Optimizations = append(meta.Optimizations, o)
	}
	return kept
}

// coarsenCompare is both windows at grain g, joined, with the _meta that says
// so (nil when a window cannot be had at g).
func (p *pipeline) coarsenCompare(ctx context.Context, g Grain) (*Table, Meta, error) {
	meta := p.meta
	meta.Optimizations = slices.Clone(p.meta.Optimizations)
	meta.Warnings = slices.Clone(p.meta.Warnings)
	cur, curAsked, err := p.windowAt(ctx, p.cmp.cur, g, p.opt.Requery, &meta, "")
	if err != nil || cur == nil {
		return nil, meta, err
	}
	base, baseAsked, err := p.baseAt(ctx, g, &meta)
	if err != nil || base == nil {
		return nil, meta, err
	}
	joined, meta, err := p.compareAt(g, cur, base, meta)
	if err != nil {
		return nil, meta, err
	}
	how := "rolled up from the rows in hand"
	switch {
	case curAsked && baseAsked:
		how = fmt.Sprintf("asked of the source again at %s grain", g)
	case curAsked || baseAsked:
		how = fmt.Sprintf("one asked of the source again at %s grain, one rolled up", g)
	}
	meta.Optimizations = append(meta.Optimizations, Optimization{Type: "granularity_change", From: string(p.requested), To: string(g),
		RowsBefore: p.cmp.cur.Len() + p.cmp.base.Len(), RowsAfter: joined.Len(),
		Detail: fmt.Sprintf("Changed time aggregation from %s to %s so the complete comparison fits: both windows (%d and %d %s rows) were %s and compared again, %s",
			p.requested, g, p.cmp.cur.Len(), p.cmp.base.Len(), p.requested, how, pairingWords(g))})
	return joined, meta, nil
}

// pairingWords says in a phrase how the windows' periods face each other at g.
func pairingWords(g Grain) string {
	if g == Total {
		return "the whole window against the whole window"
	}
	w := g.PeriodWord()
	return fmt.Sprintf("each %s of the current window against the days of the comparison window paired with it", w)
}

// baseAt is the comparison window cut into the periods paired with the
// current window's at grain g (spans): from its rows in hand when they can be
// cut there (and keep every metric), else asked of the source at g, else at
// daily grain; nil when none can be. It reports whether the source was asked.
func (p *pipeline) baseAt(ctx context.Context, g Grain, meta *Meta) (*Table, bool, error) {
	cmp := p.cmp.cmp
	sp := cmp.spans(g, p.opt.Start, p.opt.End)
	inHand, dropped, err := cmp.pairPeriods(p.cmp.base, g, sp)
	if err != nil || (inHand != nil && len(dropped) == 0) || cmp.Requery == nil {
		return inHand, false, err
	}
	for _, at := range []Grain{g, Daily} {
		if at == p.requested || (at == Daily && g == Daily) {
			continue // the rows in hand are at this grain
		}
		fresh, err := p.requeryWindow(ctx, at, cmp.Requery, meta, " (comparison window)")
		if err != nil {
			return nil, true, err
		}
		paired, left, err := cmp.pairPeriods(fresh, g, sp)
		if err != nil {
			return nil, true, err
		}
		if paired != nil && (len(left) == 0 || inHand == nil) {
			return paired, true, nil
		}
	}
	return inHand, false, nil
}

// windowAt is one window's table at grain g: rolled up exactly when it can
// be, else asked of requery (whose rows pass step 1). It reports whether the
// source was asked; nil when g cannot be had.
func (p *pipeline) windowAt(ctx context.Context, t *Table, g Grain, requery func(context.Context, Grain) (*Table, error), meta *Meta, which string) (*Table, bool, error) {
	if canRollup(grainOf(t), g) {
		out, dropped, err := Rollup(t, g)
		if err != nil {
			return nil, false, err
		}
		if len(dropped) == 0 || requery == nil {
			if len(dropped) > 0 {
				meta.Warnings = appendNew(meta.Warnings, Warning{Type: "metric_unavailable_at_grain", Fields: dropped,
					Detail: fmt.Sprintf("%v cannot be rolled up to %s (distinct counts are not additive) and no re-query was possible; left out of the comparison", dropped, g)})
			}
			return out, false, nil
		}
	} else if requery == nil {
		return nil, false, nil
	}
	kept, err := p.requeryWindow(ctx, g, requery, meta, which)
	return kept, true, err
}

// requeryWindow asks requery for one window at grain g and applies step 1 to
// its rows, reporting both in meta.
func (p *pipeline) requeryWindow(ctx context.Context, g Grain, requery func(context.Context, Grain) (*Table, error), meta *Meta, which string) (*Table, error) {
	fresh, err := requery(ctx, g)
	meta.SourceCalls++
	if err != nil {
		return nil, fmt.Errorf("fit: re-query%s at %s grain: %w", which, g, err)
	}
	if err := fresh.Validate(); err != nil {
		return nil, err
	}
	kept, removed, _ := dropEmptyDimensionRows(fresh)
	if len(removed) > 0 {
		o := p.removal(fresh, fresh, removed)
		o.Detail += which
		meta.Optimizations = append(meta.Optimizations, o)
	}
	meta.Warnings = appendNew(meta.Warnings, noticeWarnings(fresh.Notices)...)
	return kept, nil
}

// compareAt joins the two windows' tables at grain g — base cut into the
// periods paired with cur's (baseAt) — applies the comparison's selection and
// the caller's order, and sets _meta.comparison.
func (p *pipeline) compareAt(g Grain, cur, base *Table, meta Meta) (*Table, Meta, error) {
	cmp := p.cmp.cmp
	joined, left, err := joinWindows(cur, base, g, windowPeriods(g, p.opt.Start, p.opt.End), spanLabels(cmp.spans(g, p.opt.Start, p.opt.End)))
	if err != nil {
		return nil, meta, err
	}
	meta.Warnings = slices.Clone(meta.Warnings)
	if len(left) > 0 {
		meta.Warnings = appendNew(meta.Warnings, Warning{Type: "metric_not_compared", Fields: left,
			Detail: fmt.Sprintf("%s %s not compared at %s grain: one of the windows does not have %s at this grain (distinct counts are never added up)",
				joinWords(left, "and"), map[bool]string{true: "is", false: "are"}[len(left) == 1], g, map[bool]string{true: "it", false: "them"}[len(left) == 1])})
	}
	limit, order := cmp.Limit, p.opt.Sort
	if missing := absentColumns(joined, cmp.Reads); len(missing) > 0 {
		// A filter on a missing column is skipped by Keep; a sort key on
		// one is dropped, and with it a limit that would take rows in an
		// order it does not state.
		unsorted := slices.ContainsFunc(order, func(k SortKey) bool { return slices.Contains(missing, k.Column) })
		order = slices.DeleteFunc(slices.Clone(order), func(k SortKey) bool { return slices.Contains(missing, k.Column) })
		what := "filtered or sorted"
		if unsorted && limit > 0 {
			limit, what = 0, "filtered, sorted or limited"
		}
		meta.Warnings = appendNew(meta.Warnings, Warning{Type: "selection_not_applied", Fields: missing,
			Detail: fmt.Sprintf("The rows were not %s by %s: its metric is left out of this answer at %s grain (another warning says why); the rest of the selection applies. Select or sort by a metric the answer has",
				what, joinWords(missing, "or"), g)})
	}
	keep, selection := cmp.Keep, cmp.Selection
	if missing := absentColumns(joined, cmp.Reads); len(missing) > 0 && selection != "" {
		selection += fmt.Sprintf(", except what reads %s (selection_not_applied)", joinWords(missing, "or"))
	}
	joined = SortRows(joined, order)
	all := joined.Len()
	if keep != nil {
		var rows []int
		for r := range joined.Len() {
			if keep(joined, r) {
				rows = append(rows, r)
			}
		}
		joined = takeRows(joined, rows)
	}
	if g == p.requested {
		meta.OriginalRows = all
	}
	meta.RowsBeforeLimit = 0
	if limit > 0 {
		if joined.Len() > limit {
			meta.RowsBeforeLimit = joined.Len()
		}
		joined = limitRows(joined, limit, joined.Column(p.opt.Dialect.LimitPartition))
	}
	if selection != "" {
		meta.Optimizations = append(slices.Clone(meta.Optimizations), Optimization{Type: "comparison_selection", RowsBefore: all, RowsAfter: joined.Len(),
			Detail: fmt.Sprintf("Kept the %s of %s compared at %s grain selected by %s", pluralRows(joined.Len()), pluralRows(all), g, selection)})
	}
	cm := &ComparisonMeta{Mode: cmp.Mode, Current: windowOf(p.opt.Start, p.opt.End), Compare: windowOf(cmp.Start, cmp.End),
		Alignment: p.alignmentWords(g),
		Columns: fmt.Sprintf("for each metric m: m (current window), m%s, m%s (current minus comparison), m%s (change as %% of the comparison value; empty when that is 0); %s is %s, %s (only in the current window) or %s (only in the comparison window)",
			CompareSuffix, ChangeSuffix, ChangePctSuffix, StatusColumn, StatusBoth, StatusNew, StatusStopped)}
	if st := joined.Column(StatusColumn); st != nil {
		for _, s := range st.Strings {
			switch s {
			case StatusBoth:
				cm.Both++
			case StatusNew:
				cm.New++
			case StatusStopped:
				cm.Stopped++
			}
		}
	}
	meta.Comparison = cm
	return joined, meta, nil
}

// absentColumns are the names among reads that t has no column of.
func absentColumns(t *Table, reads []string) []string {
	var out []string
	for _, n := range reads {
		if t.Column(n) == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// alignmentWords says how rows of the two windows are paired at grain g,
// and what the windows' lengths mean for the pairing.
func (p *pipeline) alignmentWords(g Grain) string {
	cw, bw := windowOf(p.opt.Start, p.opt.End), windowOf(p.cmp.cmp.Start, p.cmp.cmp.End)
	if g == Total {
		if cw.Days != bw.Days {
			return fmt.Sprintf("each window's totals, row by row on equal dimension values; the windows differ in length (%d days against %d)", cw.Days, bw.Days)
		}
		return "each window's totals, row by row on equal dimension values"
	}
	lengths := ""
	if cw.Days != bw.Days {
		lengths = fmt.Sprintf(" The windows differ in length (%d days against %d): a comparison period can hold more days than the current one it faces (its label names them), or none (an empty label, its rows new).", cw.Days, bw.Days)
	}
	w, tc := g.PeriodWord(), g.TimeColumn()
	return fmt.Sprintf("by position: each %s of the current window against the comparison window's days paired with it. Each day of the current window is paired with one day of the comparison window (%s); comparison period i runs from the day paired with the first day of current %s i to the day before the next, so both windows have as many periods and no row is new or stopped because of where periods fall on the calendar. %s labels the current %s; %s%s labels the comparison period as a %s when it is one (or the window's part of one), else by its first and last day (YYYY-MM-DD%sYYYY-MM-DD).%s",
		w, pairRule, w, tc, w, ComparePrefix, tc, w, SpanSeparator, lengths)
}

// pairRule says which day of the comparison window is paired with a day of
// the current window (Comparison.Pair, internal/query's Compare.Pair).
const pairRule = "the same day of the month when the comparison window is the date range moved by whole months — previous_year, and previous_period at monthly or quarterly grain — with 29 February paired with 28 February; otherwise the day as many days after the comparison window's start"

// takeRows is t with only the given rows, in that order, none cut by a limit.
func takeRows(t *Table, rows []int) *Table {
	out := t.Select(rows)
	out.RowsBeforeLimit = len(rows)
	return out
}

// limitRows keeps the first n rows of t (of each value of part, when set).
func limitRows(t *Table, n int, part *Column) *Table {
	var rows []int
	seen := map[string]int{}
	for r := range t.Len() {
		k := ""
		if part != nil {
			k = part.Strings[r]
		}
		if seen[k] < n {
			rows = append(rows, r)
		}
		seen[k]++
	}
	return takeRows(t, rows)
}

// windowPeriods lists the labels of the periods at grain g that the window
// start…end touches, in order ("" once for Total).
func windowPeriods(g Grain, start, end time.Time) []string {
	if g == Total || g == "" {
		return []string{""}
	}
	var out []string
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		if l := periodOf(g, d); len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	return out
}

// joinWindows pairs the rows of cur and base, both at grain g, on equal
// dimension values and the same period position — curPeriods and basePeriods
// are each window's period labels by position ("" for a comparison period
// holding no day) — and returns the joined table and the visible metrics
// left out because one window lacks them.
func joinWindows(cur, base *Table, g Grain, curPeriods, basePeriods []string) (*Table, []string, error) {
	position := func(periods []string) map[string]int {
		m := make(map[string]int, len(periods))
		for i, l := range periods {
			if l != "" || g == Total {
				m[l] = i
			}
		}
		return m
	}
	curPos, basePos := position(curPeriods), position(basePeriods)
	var dims []*Column
	var timeCol *Column
	for _, c := range cur.Columns {
		switch c.Role {
		case RoleDimension:
			dims = append(dims, c)
		case RoleTime:
			timeCol = c
		}
	}
	pr := &pairing{g: g, dims: dims, timeCol: timeCol, index: map[string]int{}}
	if err := pr.side(cur, curPos, false); err != nil {
		return nil, nil, err
	}
	if err := pr.side(base, basePos, true); err != nil {
		return nil, nil, err
	}
	pairs := pr.pairs
	n := len(pairs)
	out := &Table{Grain: g, RowsBeforeLimit: n, Notices: cur.Notices}
	label := func(periods []string, pos int) string {
		if pos < len(periods) {
			return periods[pos]
		}
		return ""
	}
	strs := func(f func(p joinedRow) string) []string {
		s := make([]string, n)
		for i, p := range pairs {
			s[i] = f(p)
		}
		return s
	}
	var metrics []*Column
	var left []string
	for _, c := range cur.Columns {
		switch c.Role {
		case RoleDimension:
			bc := base.Column(c.Name)
			nc := *c
			nc.Strings = strs(func(p joinedRow) string {
				if p.cur >= 0 {
					return c.Strings[p.cur]
				}
				return bc.Strings[p.base]
			})
			out.Columns = append(out.Columns, &nc)
		case RoleTime:
			nc := *c
			nc.Strings = strs(func(p joinedRow) string { return label(curPeriods, p.pos) })
			out.Columns = append(out.Columns, &nc)
			out.Columns = append(out.Columns, &Column{Name: ComparePrefix + c.Name, Role: RoleDimension, Unit: true,
				Strings: strs(func(p joinedRow) string { return label(basePeriods, p.pos) })})
		case RoleMetric:
			if bc := base.Column(c.Name); bc == nil || bc.Role != RoleMetric {
				if !c.Hidden {
					left = append(left, c.Name)
				}
				continue
			}
			metrics = append(metrics, c)
		}
	}
	out.Columns = append(out.Columns, &Column{Name: StatusColumn, Role: RoleDimension, Unit: true,
		Strings: strs(func(p joinedRow) string {
			switch {
			case p.cur < 0:
				return StatusStopped
			case p.base < 0:
				return StatusNew
			}
			return StatusBoth
		})})
	// A ratio whose parts are not both compared is left out too.
	compared := map[string]bool{}
	for _, c := range metrics {
		compared[c.Name] = true
	}
	var kept []*Column
	for _, c := range metrics {
		if c.Aggregation == Ratio && (!compared[c.Numerator] || !compared[c.Denominator]) {
			if !c.Hidden {
				left = append(left, c.Name)
			}
			continue
		}
		kept = append(kept, c)
	}
	for _, c := range kept {
		out.Columns = append(out.Columns, comparedColumns(c, base.Column(c.Name), pairs)...)
	}
	if err := out.Validate(); err != nil {
		return nil, nil, err
	}
	return out, left, nil
}

// pairing pairs the rows of two windows on their dimensions and period
// position (joinWindows).
type pairing struct {
	g       Grain
	dims    []*Column
	timeCol *Column
	index   map[string]int
	pairs   []joinedRow
	key     strings.Builder
}

// side adds the rows of one window, t, whose period labels' positions are
// periods.
func (pr *pairing) side(t *Table, periods map[string]int, isBase bool) error {
	var tc *Column
	if pr.timeCol != nil {
		if tc = t.Column(pr.timeCol.Name); tc == nil {
			return fmt.Errorf("fit: comparison window lacks the time column %q", pr.timeCol.Name)
		}
	}
	cols := make([]*Column, len(pr.dims)) // this window's, in dims' order
	for i, d := range pr.dims {
		if cols[i] = t.Column(d.Name); cols[i] == nil || cols[i].Role != RoleDimension {
			return fmt.Errorf("fit: comparison window lacks dimension %q", d.Name)
		}
	}
	for r := range t.Len() {
		pos := 0
		if tc != nil {
			p, ok := periods[tc.Strings[r]]
			if !ok {
				return fmt.Errorf("fit: %s row %q lies outside its window", pr.g, tc.Strings[r])
			}
			pos = p
		}
		k := pr.keyOf(cols, r, pos)
		i, ok := pr.index[k]
		if !ok {
			i = len(pr.pairs)
			pr.index[k] = i
			pr.pairs = append(pr.pairs, joinedRow{pos: pos, cur: -1, base: -1})
		}
		at := &pr.pairs[i].cur
		if isBase {
			at = &pr.pairs[i].base
		}
		if *at >= 0 {
			return fmt.Errorf("fit: rows %d and %d of a window have the same dimensions and period; a comparison needs one row per key", *at, r)
		}
		*at = r
	}
	return nil
}

func (pr *pairing) keyOf(cols []*Column, r, pos int) string {
	pr.key.Reset()
	for _, c := range cols {
		pr.key.WriteString(c.Strings[r])
		pr.key.WriteByte(0x1f)
	}
	pr.key.WriteString(strconv.Itoa(pos))
	return pr.key.String()
}

// joinedRow is a joined row: its period position and its row in each window
// (-1: absent from that window).
type joinedRow struct{ pos, cur, base int }

// comparedColumns are metric c's four columns in the joined table: its value
// in each window, the change and the change in percent.
func comparedColumns(c, bc *Column, pairs []joinedRow) []*Column {
	n := len(pairs)
	ratioLike := c.Aggregation == Ratio || c.Numerator != ""
	// value is one window's value of the joined row: the row's own, or for a
	// row absent from that window zero for a count (empty when the other
	// window's value is empty: not reported) and empty for a ratio.
	value := func(col, other *Column, row, otherRow int) (float64, bool) {
		if row >= 0 {
			return col.Numbers[row], !col.IsNull(row)
		}
		if ratioLike || other.IsNull(otherRow) {
			return 0, false
		}
		return 0, true
	}
	mk := func(name string, agg Aggregation) *Column {
		nc := *c
		nc.Name = name
		nc.Aggregation = agg
		nc.Numbers = make([]float64, n)
		nc.Null = make([]bool, n)
		nc.Strings = nil
		return &nc
	}
	curCol, baseCol := mk(c.Name, c.Aggregation), mk(c.Name+CompareSuffix, c.Aggregation)
	if c.Numerator != "" {
		// Its parts in the comparison window (frequency's too: ratio-like,
		// never averaged).
		baseCol.Numerator, baseCol.Denominator = c.Numerator+CompareSuffix, c.Denominator+CompareSuffix
	}
	changeAgg, pctAgg := NonAdditive, NonAdditive
	if c.Aggregation == Sum {
		changeAgg, pctAgg = Sum, Ratio
	}
	change := mk(c.Name+ChangeSuffix, changeAgg)
	change.Numerator, change.Denominator, change.Scale = "", "", 0
	pct := mk(c.Name+ChangePctSuffix, pctAgg)
	pct.Money, pct.Currency, pct.CurrencyColumn = false, "", ""
	pct.Numerator, pct.Denominator, pct.Scale = "", "", 100
	if c.Aggregation == Sum {
		pct.Numerator, pct.Denominator = change.Name, baseCol.Name
	}
	for i, p := range pairs {
		cv, cok := value(c, bc, p.cur, p.base)
		bv, bok := value(bc, c, p.base, p.cur)
		curCol.Numbers[i], curCol.Null[i] = cv, !cok
		baseCol.Numbers[i], baseCol.Null[i] = bv, !bok
		change.Null[i], pct.Null[i] = true, true
		if cok && bok {
			change.Numbers[i], change.Null[i] = cv-bv, false
			if bv != 0 {
				pct.Numbers[i], pct.Null[i] = (cv-bv)/bv*100, false
			}
		}
	}
	if c.Hidden {
		// Parts of a ratio nobody asked for: each window's, for recomputing.
		return []*Column{curCol, baseCol}
	}
	return []*Column{curCol, baseCol, change, pct}
}

// windowWarnings are what the two windows' shapes mean for the comparison:
// different lengths, or a different mix of weekdays.
func (p *pipeline) windowWarnings() []Warning {
	cs, ce, bs, be := p.opt.Start, p.opt.End, p.cmp.cmp.Start, p.cmp.cmp.End
	cw, bw := windowOf(cs, ce), windowOf(bs, be)
	var out []Warning
	if cw.Days != bw.Days {
		out = append(out, Warning{Type: "compare_window_length",
			Detail: fmt.Sprintf("The windows differ in length: the current window %s to %s has %d days, the comparison window %s to %s has %d. Totals are not like for like; compare per-day figures (a sum divided by its window's days) or say so",
				cw.Start, cw.End, cw.Days, bw.Start, bw.End, bw.Days)})
	}
	if cd, bd := weekdayCounts(cs, ce), weekdayCounts(bs, be); cd != bd {
		out = append(out, Warning{Type: "compare_weekdays",
			Detail: fmt.Sprintf("The windows hold different days of the week (current: %s; comparison: %s). Weekly seasonality (weekends spend differently) can show as change",
				weekdayWords(cd), weekdayWords(bd))})
	} else if p.requested == Daily && cs.Weekday() != bs.Weekday() {
		out = append(out, Warning{Type: "compare_weekdays",
			Detail: fmt.Sprintf("Day 1 of the current window is a %s, day 1 of the comparison window a %s: each daily row compares different days of the week",
				cs.Weekday(), bs.Weekday())})
	}
	return out
}

func weekdayCounts(start, end time.Time) [7]int {
	var n [7]int
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		n[d.Weekday()]++
	}
	return n
}

func weekdayWords(n [7]int) string {
	var parts []string
	for i := 1; i <= 7; i++ {
		d := time.Weekday(i % 7)
		parts = append(parts, fmt.Sprintf("%d %s", n[d], d.String()[:3]))
	}
	return strings.Join(parts, ", ")
}

// rolledAt is the table at grain g that base (the requested grain's answer)
// rolls up into, for pricing narrower queries from the rows in hand: for a
// comparison, both windows rolled up alike and joined (nil when a window
// cannot be rolled up exactly).
func (p *pipeline) rolledAt(base *Table, g Grain) (*Table, error) {
	if p.cmp == nil {
		rolled, _, err := Rollup(base, g)
		return rolled, err
	}
	cur, curDropped, err := Rollup(p.cmp.cur, g)
	if err != nil {
		return nil, err
	}
	old, baseDropped, err := p.cmp.cmp.pairPeriods(p.cmp.base, g, p.cmp.cmp.spans(g, p.opt.Start, p.opt.End))
	if err != nil {
		return nil, err
	}
	if old == nil || len(curDropped) > 0 || len(baseDropped) > 0 {
		return nil, nil
	}
	joined, _, err := p.compareAt(g, cur, old, Meta{})
	return joined, err
}

// comparedTotals is the comparison at total grain by the dimensions kept
// (columns of the joined table), from both windows' rows in hand, and the
// visible metrics it leaves out.
func (p *pipeline) comparedTotals(kept []*Column) (*Table, []string, error) {
	project := func(t *Table) *Table {
		out := &Table{Grain: t.Grain, RowsBeforeLimit: t.Len()}
		for _, c := range t.Columns {
			if c.Role != RoleDimension || c.Hidden || slices.ContainsFunc(kept, func(k *Column) bool { return k.Name == c.Name }) {
				out.Columns = append(out.Columns, c)
			}
		}
		return out
	}
	cur, curDropped, err := Rollup(project(p.cmp.cur), Total)
	if err != nil {
		return nil, nil, err
	}
	old, _, err := Rollup(project(p.cmp.base), Total)
	if err != nil {
		return nil, nil, err
	}
	// The narrower answer's step 1 removes the rows whose kept dimensions
	// are all empty: so does its price.
	cur, _, _ = dropEmptyDimensionRows(cur)
	old, _, _ = dropEmptyDimensionRows(old)
	joined, _, err := p.compareAt(Total, cur, old, Meta{})
	return joined, curDropped, err
}

package fit

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Large describes the table a query asked for when it is too large to bring
// into memory: its source counted its rows where they are, keeps the rows
// step 1 removes (few) and can aggregate the others, so the pipeline answers
// from a coarser table that can fit — or, when none can, summarizes the
// requested table from its aggregates — without ever holding its rows.
// FitLarge and Fit on the table itself give the same answer, but for how the
// coarser table was obtained (asked for, not rolled up) and the estimate of
// the requested table's size (docs/fit.md, "Large results").
type Large struct {
	// Schema has the requested table's columns (no rows), grain and notices.
	Schema *Table
	// Rows is how many rows the requested table has, those step 1 removes
	// included; 0 when they were not counted (a coarser grain already has
	// too many rows to fit: the aggregates count them). Removed is the rows
	// step 1 removes (every judged dimension empty).
	Rows    int
	Removed *Table
	// Aggregates computes the aggregates of the rows step 1 keeps, for the
	// summary; it is called only when nothing coarser fits.
	Aggregates func(ctx context.Context) (*Aggregates, error)
}

// ErrNotLarge is FitLarge's answer for a table that might fit as it is: only
// a table whose row count alone exceeds the budget (or the line limit) is
// answered without its rows; the caller fetches it and calls Fit.
var ErrNotLarge = errors.New("fit: the table might fit at its own grain; fetch it and call Fit")

// FitLarge answers for the table l describes. coarse is the complete table
// at a coarser grain — the finest the source found that might fit — or nil
// when none can be held; coarser grains than coarse's are rolled up from it
// (or asked of opt.Requery), as Fit would, and when none fits the summary is
// of the requested grain, from l.Aggregates, with the narrower queries
// computed from coarse.
func FitLarge(ctx context.Context, l *Large, coarse *Table, opt Options) (*Response, error) {
	p, err := newPipeline(l.Schema, opt)
	if err != nil {
		return nil, err
	}
	kept := l.Rows - l.Removed.Len()
	switch {
	case l.Rows > 0 && kept <= opt.Budget && (opt.MaxLines == 0 || kept+1 <= opt.MaxLines):
		return nil, ErrNotLarge
	case l.Rows == 0 || kept > opt.Budget:
		p.bind(LimitTokens)
	default:
		p.bind(LimitLines)
	}
	if coarse != nil && !slices.Contains(coarser(p.requested), grainOf(coarse)) {
		return nil, fmt.Errorf("fit: the coarser table is at %s grain, not coarser than %s", grainOf(coarse), p.requested)
	}
	p.large = l
	p.meta.OriginalRows = l.Rows
	// Step 1 at the requested grain: its removed rows are in hand.
	if l.Removed.Len() > 0 {
		p.meta.Optimizations = append(p.meta.Optimizations, p.removal(l.Schema, l.Removed, allRows(l.Removed)))
	}
	if coarse != nil {
		if resp, err := p.fromCoarse(ctx, coarse); err != nil || resp != nil {
			return resp, err
		}
	}
	return p.tooLarge(ctx, nil)
}

// fromCoarse tries the coarser table the source returned, then grains coarser
// still — rolled up from it, as the source would answer them, or asked of
// the source when they cannot be (distinct counts, a selection) — until one
// fits; nil when none does. Each is step 1 applied to the table at its grain,
// as to a re-query. The requested grain's _meta is left as it was, for the
// summary.
func (p *pipeline) fromCoarse(ctx context.Context, coarse *Table) (*Response, error) {
	requested := cloneMeta(p.meta)
	calls := p.meta.SourceCalls + 1
	defer func() { p.meta = requested; p.meta.SourceCalls = calls }()
	from, g0, kept := p.requested, grainOf(coarse), p.large.Rows-p.large.Removed.Len()
	cannot := fmt.Sprintf("the %s cannot fit (each row costs at least a token)", pluralRowsAt(p.large.Rows, from))
	try := func(raw *Table, g Grain, detail func(rows int) string) (*Response, bool, *Table, error) {
		meta := cloneMeta(requested)
		meta.SourceCalls = calls
		out, meta := p.adopt(raw, p.large.Schema, g, meta)
		meta.Optimizations = append(meta.Optimizations, Optimization{Type: "granularity_change", From: string(from), To: string(g),
			RowsBefore: kept, RowsAfter: out.Len(), Detail: "Changed time aggregation from " + string(from) + " to " + string(g) + " so the complete data fits: " + detail(out.Len())})
		if p.opt.Selection != "" {
			meta.Warnings = append(meta.Warnings, p.selectionAtCoarserGrain(g))
		}
		resp, ok, err := p.render(out, meta)
		return resp, ok, out, err
	}
	resp, ok, out, err := try(coarse, g0, func(n int) string {
		return fmt.Sprintf("%s, so the source was asked at %s grain and returned %s", cannot, g0, pluralRows(n))
	})
	p.largeBase = out
	if err != nil || ok {
		return resp, err
	}
	for _, g := range coarser(g0) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.skipGrain(g) {
			continue
		}
		var raw *Table
		var detail func(int) string
		// A roll-up of the coarser table is what the source answers at g,
		// but for a selection (it applies to the rows of the grain asked).
		if p.opt.Selection == "" && canRollup(g0, g) {
			if n, err := rowCountAt(coarse, g); err == nil && (n > p.opt.Budget || p.opt.MaxLines > 0 && n+1 > p.opt.MaxLines) {
				continue
			}
			if rolled, dropped, err := Rollup(coarse, g); err == nil && len(dropped) == 0 {
				raw = SortRows(rolled, p.opt.Sort)
				detail = func(n int) string {
					return fmt.Sprintf("%s, so the source was asked at %s grain, and its %s merged into %s", cannot, g0, pluralRowsAt(coarse.Len(), g0), pluralRowsAt(n, g))
				}
			}
		}
		if raw == nil {
			if p.opt.Requery == nil {
				continue
			}
			fresh, err := p.opt.Requery(ctx, g)
			calls++
			if err != nil {
				return nil, fmt.Errorf("fit: re-query at %s grain: %w", g, err)
			}
			if err := fresh.Validate(); err != nil {
				return nil, err
			}
			raw = fresh
			detail = func(n int) string {
				return fmt.Sprintf("%s, so the source was asked at %s grain and returned %s", cannot, g, pluralRows(n))
			}
		}
		if resp, ok, _, err := try(raw, g, detail); err != nil || ok {
			return resp, err
		}
	}
	return nil, nil
}

func cloneMeta(m Meta) Meta {
	m.Optimizations = slices.Clone(m.Optimizations)
	m.Warnings = slices.Clone(m.Warnings)
	return m
}

// adopt makes a table the source returned at grain g the answer's rows: what
// step 1 removes from them is what they leave out. The requested grain's
// removal (of base) still counts rows (row accounting), but its totals would
// be counted twice.
func (p *pipeline) adopt(fresh, base *Table, g Grain, meta Meta) (*Table, Meta) {
	var judged []string
	for _, c := range JudgedDimensions(base.Columns) {
		judged = append(judged, c.Name)
	}
	for i, o := range meta.Optimizations {
		if o.Type == "validation_filter" && o.Grain == "" {
			o.RemovedTotals = nil
			o.Detail = fmt.Sprintf("Removed %s at %s grain with no %s, before the answer was asked again at %s grain; what the returned rows leave out is in the re-query's validation_filter",
				pluralRows(o.RowsRemoved), p.requested, joinWords(judged, "and"), g)
			meta.Optimizations[i] = o
		}
	}
	out := p.filter(fresh, &meta)
	meta.Warnings = appendNew(meta.Warnings, noticeWarnings(fresh.Notices)...)
	meta.RowsBeforeLimit = 0
	if fresh.RowsBeforeLimit > fresh.Len() {
		meta.RowsBeforeLimit = fresh.RowsBeforeLimit - (fresh.Len() - out.Len())
	}
	return out, meta
}

func allRows(t *Table) []int {
	out := make([]int, t.Len())
	for i := range out {
		out[i] = i
	}
	return out
}

// largeSummary is the summary of the Large table from its aggregates, an
// estimate of its size from the coarser table in hand (tokens per row there,
// times its rows), and narrower queries computed from that table; the
// all-zero check of step 1, which needs every row, is made on the aggregates
// and the removed rows and added to meta.
func (p *pipeline) largeSummary(ctx context.Context, opt SummaryOptions, meta *Meta) (*Summary, int, []Suggestion, error) {
	l := p.large
	agg, err := l.Aggregates(ctx)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("fit: aggregates of the %s rows: %w", p.requested, err)
	}
	if l.Rows == 0 { // counted now
		l.Rows = agg.Rows + l.Removed.Len()
		meta.OriginalRows = l.Rows
	}
	opt.MainMetric = p.mainMetric(l.Schema)
	complete := SummarizeAggregates(l.Schema, agg, opt)
	if l.Removed.Len() > 0 {
		complete.overWhole(SummarizeAggregates(l.Schema, withRemoved(agg, l.Removed), SummaryOptions{}).Metrics)
	}
	if p.opt.Selection == "" {
		keys, whole := allZeroAggregates(l.Schema, agg, l.Removed, p.opt.Partitions.Column)
		keys, whole = p.opt.Partitions.zeroOf(l.Schema, keys, whole)
		p.warnAllZero(meta, keys, whole)
	}
	kept := l.Rows - l.Removed.Len()
	header, perRow := p.view(l.Schema).tokens, 0
	var suggestions []Suggestion
	if b := p.largeBase; b != nil && b.Len() > 0 {
		v := p.view(b)
		perRow = (v.tokens - v.header + b.Len() - 1) / b.Len()
		suggestions = p.suggestions(v, p.meta)
	} else {
		perRow = 2 * len(l.Schema.Columns) // about two tokens a cell
	}
	return complete, header + kept*perRow, suggestions, nil
}

// allZeroAggregates is AllZeroPartitions over a table known by its
// aggregates and the rows step 1 removed from it.
func allZeroAggregates(schema *Table, agg *Aggregates, removed *Table, partition string) (keys []string, whole bool) {
	var metrics []*Column
	for _, c := range schema.Columns {
		if c.Role == RoleMetric && !c.Hidden {
			metrics = append(metrics, c)
		}
	}
	if len(metrics) == 0 || agg.Rows+removed.Len() == 0 {
		return nil, false
	}
	// Each removed row: a metric other than zero, a metric with a value.
	row := func(r int) (nonZero, valued bool) {
		for _, m := range metrics {
			if c := removed.Column(m.Name); c != nil && !c.IsNull(r) {
				valued = true
				nonZero = nonZero || c.Numbers[r] != 0
			}
		}
		return nonZero, valued
	}
	pc := schema.Column(partition)
	if partition == "" || pc == nil || pc.Role == RoleMetric {
		nonZero, valued := false, false
		for _, c := range metrics {
			for _, m := range agg.Metrics[c.Name] {
				nonZero = nonZero || m.Values > 0 && (m.Min != 0 || m.Max != 0)
				valued = valued || m.Values > 0
			}
		}
		for r := range removed.Len() {
			nz, v := row(r)
			nonZero, valued = nonZero || nz, valued || v
		}
		return nil, !nonZero && valued
	}
	nonZero, valued := map[string]bool{}, map[string]bool{}
	for _, v := range agg.Values[partition] {
		nonZero[v.Value] = nonZero[v.Value] || v.NonZero
		valued[v.Value] = valued[v.Value] || v.Valued
	}
	if rc := removed.Column(partition); rc != nil {
		for r := range removed.Len() {
			nz, v := row(r)
			k := rc.Strings[r]
			nonZero[k], valued[k] = nonZero[k] || nz, valued[k] || v
		}
	}
	for k, v := range valued {
		if v && !nonZero[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, false
}

// ClearlyOver says table t's CSV alone is clearly over opt's budget (by a
// sampled estimate, over twice the budget): the test the pipeline skips a
// grain by without encoding it, for a caller deciding what to ask its source
// for.
func ClearlyOver(t *Table, opt Options) bool {
	c := opt.Counter
	if c == nil {
		c = defaultCounter()
	}
	return t.Len() > opt.Budget || sampledTokens(t, c, 500) > 2*opt.Budget
}

package fit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Fit runs the pipeline on a complete table: validate and filter, encode and
// check the budget, coarsen time, and summarize when nothing else fits. It never
// drops a row without saying so in _meta, and the response it returns fits
// opt.Budget by exact count.
func Fit(ctx context.Context, t *Table, opt Options) (*Response, error) {
	if opt.Compare != nil {
		return fitCompare(ctx, t, opt)
	}
	p, err := newPipeline(t, opt)
	if err != nil {
		return nil, err
	}
	p.received, p.source = p.meta, t

	// Step 1: validate and filter.
	base := p.filter(t, &p.meta)
	p.base = base
	if t.RowsBeforeLimit > t.Len() {
		// Rows removed by step 1 never took a place in the limit (a source that
		// ranks them puts them all in the table): what the limit chose from is
		// the rest.
		p.meta.RowsBeforeLimit = t.RowsBeforeLimit - (t.Len() - base.Len())
	}

	// Step 2: encode and check.
	if resp, ok, err := p.render(base, p.meta); err != nil || ok {
		return resp, err
	}

	// Step 3: coarsen time.
	if resp, err := p.coarsenAll(ctx, base); err != nil || resp != nil {
		return resp, err
	}

	// Step 4: summarize the complete data.
	return p.tooLarge(ctx, base)
}

// newPipeline checks the options and starts the _meta of table t's answer.
func newPipeline(t *Table, opt Options) (*pipeline, error) {
	if opt.Budget <= 0 {
		return nil, errors.New("fit: the budget must be positive")
	}
	if opt.MaxBytes < 0 || opt.MaxLines < 0 {
		return nil, errors.New("fit: MaxBytes and MaxLines must not be negative (0: no such limit)")
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if opt.Counter == nil {
		opt.Counter = defaultCounter()
	}
	if opt.Report.AnnouncedBudget == 0 {
		opt.Report.AnnouncedBudget = opt.Budget
	}
	if opt.Report.Started.IsZero() {
		opt.Report.Started = time.Now()
	}
	p := &pipeline{opt: opt, requested: grainOf(t), columns: t.Columns}
	p.meta = Meta{
		OriginalRows:  t.Len(),
		Format:        "csv",
		TokenBudget:   opt.Report.AnnouncedBudget,
		ByteBudget:    opt.MaxBytes,
		LineBudget:    opt.MaxLines,
		BudgetSource:  opt.Report.BudgetSource,
		Optimizations: slices.Clone(opt.Report.Optimizations),
		Warnings:      slices.Clone(opt.Report.Warnings),
		Definitions:   opt.Definitions,
		Provenance:    opt.Provenance,
		Query:         opt.Query,
		SourceCalls:   opt.Report.SourceCalls,
	}
	if p.meta.Optimizations == nil {
		p.meta.Optimizations = []Optimization{}
	}
	if p.meta.Warnings == nil {
		p.meta.Warnings = []Warning{}
	}
	p.meta.Warnings = append(p.meta.Warnings, noticeWarnings(t.Notices)...)
	return p, nil
}

// coarsenAll is step 3: each grain coarser than base's, finest first, until
// one fits (nil when none does).
func (p *pipeline) coarsenAll(ctx context.Context, base *Table) (*Response, error) {
	return p.coarsenEach(ctx, grainOf(base), func(g Grain) (*Table, Meta, error) { return p.coarsen(ctx, base, g) })
}

// coarsenEach tries each grain coarser than from that is not skipped, finest
// first, as coarsen makes it (nil: not reachable), until one fits.
func (p *pipeline) coarsenEach(ctx context.Context, from Grain, coarsen func(Grain) (*Table, Meta, error)) (*Response, error) {
	for _, g := range coarser(from) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.skipGrain(g) {
			continue
		}
		cand, meta, err := coarsen(g)
		if err != nil {
			return nil, err
		}
		if cand == nil {
			continue
		}
		if resp, ok, err := p.render(cand, meta); err != nil || ok {
			return resp, err
		}
		p.meta.SourceCalls = meta.SourceCalls
	}
	return nil, nil
}

type pipeline struct {
	opt       Options
	requested Grain
	meta      Meta
	// lastMeta is the _meta of the blocks finish built last.
	lastMeta Meta
	// columns are the requested table's (skipGrain).
	columns []*Column
	// large is the requested table when it is too large to hold (FitLarge).
	large *Large
	// largeBase is the coarser table FitLarge answers from, step 1 applied:
	// the data in hand for the narrower queries of the summary.
	largeBase *Table
	// received is _meta before step 1, source the table as received and base
	// the table after step 1: what a narrower query's answer at the requested
	// grain is computed from (alternatives; nil for a Large table, whose
	// rows are not in hand).
	received     Meta
	source, base *Table
	// estimates and exacts are the token counts of the blocks finish built,
	// by their text.
	estimates, exacts map[string]int
	// cmp is set for a comparison answer (fitCompare).
	cmp *comparing
}

func grainOf(t *Table) Grain {
	if t.Grain == "" {
		return Total
	}
	return t.Grain
}

// coarser lists the grains after g, finest first.
func coarser(g Grain) []Grain {
	i := slices.Index(Grains, g)
	if i < 0 {
		return nil
	}
	return Grains[i+1:]
}

// appendNew appends the warnings not already present.
func appendNew(ws []Warning, more ...Warning) []Warning {
	for _, w := range more {
		if !slices.ContainsFunc(ws, func(x Warning) bool { return x.Type == w.Type && x.Detail == w.Detail }) {
			ws = append(ws, w)
		}
	}
	return ws
}

func noticeWarnings(ns []Notice) []Warning {
	var out []Warning
	for _, n := range ns {
		out = append(out, Warning{Type: n.Type, Detail: n.Detail, Fields: n.Fields, aboutEmpty: n.AboutEmpty})
	}
	return out
}

// filter is step 1: drop rows whose dimensions are all empty, saying what they
// carried, and warn about partitions whose metrics are all zero.
func (p *pipeline) filter(t *Table, meta *Meta) *Table {
	kept, removed, _ := dropEmptyDimensionRows(t)
	if len(removed) > 0 {
		meta.Optimizations = append(meta.Optimizations, p.removal(t, t, removed))
	}
	// All zero is judged on every row the source returned (removed rows carry
	// metrics too), and never on a selection: rows chosen by a metric filter
	// or a limit say nothing of what a partition holds.
	if p.opt.Selection != "" {
		return kept
	}
	keys, whole := AllZeroPartitions(t, p.opt.Partitions.Column)
	keys, whole = p.opt.Partitions.zeroOf(t, keys, whole)
	p.warnAllZero(meta, keys, whole)
	return kept
}

// warnAllZero warns about the partitions whose every metric is zero (keys),
// or the whole table's.
func (p *pipeline) warnAllZero(meta *Meta, keys []string, whole bool) {
	if whole {
		keys = p.opt.Partitions.Keys
	}
	if len(keys) > 0 || whole {
		detail := "Every metric is zero"
		if p.opt.Partitions.ZeroDetail != "" {
			detail += ": " + p.opt.Partitions.ZeroDetail
		}
		meta.Warnings = append(meta.Warnings, Warning{Type: "all_zero_metrics", Detail: detail, Keys: keys})
	}
}

// removal is step 1's report of the rows of from (a table of t's columns and
// grain) it removes: how many, and what they carried.
func (p *pipeline) removal(t, from *Table, removed []int) Optimization {
	var judged []string
	for _, c := range JudgedDimensions(t.Columns) {
		judged = append(judged, c.Name)
	}
	o := Optimization{Type: "validation_filter", RowsRemoved: len(removed), RemovedTotals: totalsOf(from, removed)}
	of := ""
	if g := grainOf(t); g != p.requested {
		o.Grain = g
		of = fmt.Sprintf(" of the %s re-query", g)
	}
	o.Detail = fmt.Sprintf("Removed %s%s with no %s: activity not attributed to any %s. Rows + removed_totals = complete totals",
		pluralRows(len(removed)), of, joinWords(judged, "and"), joinWords(judged, "or"))
	return o
}

// joinWords joins names as "a", "a and b", "a, b and c".
func joinWords(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " " + conj + " " + names[len(names)-1]
}

// coarsen produces the table at grain g, by exact local roll-up when possible,
// else by asking the source again. It returns nil when g is not reachable or
// provably cannot fit. Rolled-up rows are put back in the requested order.
func (p *pipeline) coarsen(ctx context.Context, base *Table, g Grain) (*Table, Meta, error) {
	meta := p.meta
	meta.Optimizations = slices.Clone(p.meta.Optimizations)
	meta.Warnings = slices.Clone(p.meta.Warnings)
	from := p.requested
	local := canRollup(base.Grain, g)
	if local {
		// A grain whose row count alone exceeds the budget cannot fit: every row
		// costs at least one token.
		if n, err := rowCountAt(base, g); err == nil && (n > p.opt.Budget || p.opt.MaxLines > 0 && n+1 > p.opt.MaxLines) {
			return nil, meta, nil
		}
	}
	var out *Table
	var dropped []string
	var err error
	if local {
		out, dropped, err = Rollup(base, g)
		if err != nil {
			return nil, meta, err
		}
		out = SortRows(out, p.opt.Sort)
	}
	requeried := false
	if (!local || len(dropped) > 0) && p.opt.Requery != nil {
		fresh, err := p.opt.Requery(ctx, g)
		meta.SourceCalls++
		if err != nil {
			return nil, meta, fmt.Errorf("fit: re-query at %s grain: %w", g, err)
		}
		if err := fresh.Validate(); err != nil {
			return nil, meta, err
		}
		out, meta = p.adopt(fresh, base, g, meta)
		dropped, requeried = nil, true
	}
	if out == nil {
		return nil, meta, nil
	}
	if len(dropped) > 0 {
		meta.Warnings = append(meta.Warnings, Warning{Type: "metric_unavailable_at_grain", Fields: dropped,
			Detail: fmt.Sprintf("%v cannot be rolled up to %s (distinct counts are not additive) and no re-query was possible; left out", dropped, g)})
	}
	change := Optimization{Type: "granularity_change", From: string(from), To: string(g), RowsBefore: base.Len(), RowsAfter: out.Len()}
	switch {
	case requeried:
		change.Detail = fmt.Sprintf("Changed time aggregation from %s to %s so the complete data fits: the source was asked again at %s grain and returned %s (instead of %s at %s grain)",
			from, g, g, pluralRows(out.Len()), pluralRows(base.Len()), from)
		if p.opt.Selection != "" {
			meta.Warnings = append(meta.Warnings, p.selectionAtCoarserGrain(g))
		}
	case p.opt.Selection != "":
		change.Detail = fmt.Sprintf("Changed time aggregation from %s to %s so the complete data fits: the %s selected by %s merged into %s",
			from, g, pluralRowsAt(base.Len(), from), p.opt.Selection, pluralRowsAt(out.Len(), g))
		meta.Warnings = append(meta.Warnings, Warning{Type: "selection_at_requested_grain",
			Detail: fmt.Sprintf("Each %s row sums only the %s rows selected by %s; it is not the whole %s. Tell the user, or re-query with time_granularity %s to select whole periods",
				g, from, p.opt.Selection, periodWord(g), g)})
	default:
		change.Detail = fmt.Sprintf("Changed time aggregation from %s to %s so the complete data fits: %s merged into %s",
			from, g, pluralRowsAt(base.Len(), from), pluralRowsAt(out.Len(), g))
	}
	meta.Optimizations = append(meta.Optimizations, change)
	return out, meta, nil
}

// selectionAtCoarserGrain warns that the selection applies to rows of the
// coarser grain g the source was asked at.
func (p *pipeline) selectionAtCoarserGrain(g Grain) Warning {
	from := p.requested
	return Warning{Type: "filter_at_coarser_grain",
		Detail: fmt.Sprintf("The selection (%s) now applies to %s rows, not to %s rows as asked: the answer had to be asked again at %s grain, so each row is a whole %s period that matches, not a sum of the %s rows that matched. Tell the user",
			p.opt.Selection, g, from, g, periodWord(g), from)}
}

// periodWord names one period of a grain ("month"), or "date range" for Total.
func periodWord(g Grain) string { return g.PeriodWord() }

// pluralRowsAt is "1 daily row", "254 monthly rows", "3 total rows".
func pluralRowsAt(n int, g Grain) string {
	if n == 1 {
		return fmt.Sprintf("1 %s row", g)
	}
	return fmt.Sprintf("%d %s rows", n, g)
}

// render encodes a table as the response blocks and reports whether they fit.
func (p *pipeline) render(t *Table, meta Meta) (*Response, bool, error) {
	meta.ReturnedRows = t.Len()
	meta.Format = "csv"
	meta.TimeGranularity = &GrainChange{Requested: p.requested, Returned: grainOf(t)}
	meta.Warnings = append(meta.Warnings, p.partialWarning(grainOf(t))...)
	if p.cmp != nil {
		meta.Warnings = append(meta.Warnings, partialWarningFor(grainOf(t), p.cmp.cmp.Start, p.cmp.cmp.End, "comparison window")...)
	}
	// Provably or clearly too big: every row costs at least a token, and a sample
	// of a large table tells its size within a few percent.
	if t.Len() > p.opt.Budget || t.Len() > 2000 && sampledTokens(t, p.opt.Counter, 500) > 2*p.opt.Budget {
		p.bind(LimitTokens)
		return nil, false, nil
	}
	var csvBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, t); err != nil {
		return nil, false, err
	}
	csvText := csvBuf.String()
	csvEst := p.opt.Counter.Estimate(csvText)
	// Clearly over: no need for an exact count.
	if csvEst > p.opt.Budget+p.opt.Budget/5 ||
		p.hasExtentLimits() && p.cost(0, p.measure([]string{csvText})) > p.opt.Budget {
		p.bind(p.exceeded(csvEst, p.measure([]string{csvText})))
		return nil, false, nil
	}
	build := func(m Meta) ([]string, error) {
		mb, err := marshalMeta(m)
		return []string{mb, csvText}, err
	}
	setCount := func(m *Meta, n int) { m.TokenEstimate = n }
	blocks, tokens, err := p.finishFitted(meta, build, setCount)
	if err != nil {
		return nil, false, err
	}
	if !p.fits(blocks, tokens) {
		p.bind(p.exceeded(tokens, p.measure(blocks)))
		return nil, false, nil
	}
	if grainOf(t) != p.requested {
		// Coarsened: offer the requested grain on fewer values, if it fits.
		if blocks, err = p.withAlternatives(meta, blocks, tokens, build, setCount); err != nil {
			return nil, false, err
		}
	}
	return &Response{Kind: KindData, Blocks: blocks, Meta: p.lastMeta, Table: t}, true, nil
}

// finish builds the response blocks with _meta.token_estimate set to their own
// token count (a fixpoint: the number is part of what it counts) and returns the
// blocks and that count, exact by o200k_base when near the budget.
func (p *pipeline) finish(meta Meta, build func(Meta) ([]string, error), setCount func(*Meta, int)) ([]string, int, error) {
	// Each block is counted once: across the fixpoint iterations, and the forms
	// of _meta tried (echo levels, alternatives), only the small _meta block
	// changes, never the (large) data block.
	if p.estimates == nil {
		p.estimates, p.exacts = map[string]int{}, map[string]int{}
	}
	estimates, exacts := p.estimates, p.exacts
	count := func(blocks []string) int {
		est, most := 0, 0
		for _, b := range blocks {
			if _, ok := estimates[b]; !ok {
				estimates[b] = p.opt.Counter.Estimate(b)
			}
			est += estimates[b]
			most += MaxTokens(b)
		}
		// Far below the budget the estimate is enough, provided the response is
		// within the budget by MaxTokens too: that bound holds for any text,
		// while the estimate can be a quarter of the exact count (random Yi or
		// Cherokee letters). Realistic CSV has about two bytes a token, so the
		// bound rarely forces an exact count the estimate alone would not.
		if est*4 < p.opt.Budget && most <= p.opt.Budget {
			return est
		}
		n := 0
		for _, b := range blocks {
			if _, ok := exacts[b]; !ok {
				exacts[b] = p.opt.Counter.Exact(b)
			}
			n += exacts[b]
		}
		return n
	}
	meta.ElapsedMS = time.Since(p.opt.Report.Started).Milliseconds()
	if p.opt.Report.SourceCallsSoFar != nil {
		meta.SourceCalls = p.opt.Report.SourceCallsSoFar()
	}
	var blocks []string
	var err error
	n := 0
	for range 3 {
		setCount(&meta, n)
		if blocks, err = build(meta); err != nil {
			return nil, 0, err
		}
		m := count(blocks)
		if m == n {
			break
		}
		n = m
	}
	// The reported number is the count of the final text, or off by one when the
	// fixpoint did not settle (a digit more or less): recount to be sure.
	n = count(blocks)
	p.lastMeta = meta
	return blocks, n, nil
}

func marshalMeta(m Meta) (string, error) {
	b, err := MarshalText(struct {
		Meta Meta `json:"_meta"`
	}{m})
	return string(b), err
}

// partialWarning flags a first or last period cut by the date range.
func (p *pipeline) partialWarning(g Grain) []Warning {
	return partialWarningFor(g, p.opt.Start, p.opt.End, "date range")
}

// partialWarningFor flags a first or last period at grain g cut by the window
// start…end, named what ("date range", "comparison window").
func partialWarningFor(g Grain, start, end time.Time, what string) []Warning {
	if start.IsZero() || end.IsZero() || (g != Weekly && g != Monthly && g != Quarterly) {
		return nil
	}
	first, last := PartialPeriods(g, start, end)
	var which string
	switch {
	case first && last:
		which = "first and last"
	case first:
		which = "first"
	case last:
		which = "last"
	default:
		return nil
	}
	unit := g.PeriodWord()
	return []Warning{{Type: "partial_period", Detail: fmt.Sprintf("The %s %s %s only partly covered by the %s %s to %s; compare %ss with care",
		which, unit, map[bool]string{true: "are", false: "is"}[first && last], what, start.Format(time.DateOnly), end.Format(time.DateOnly), unit)}}
}

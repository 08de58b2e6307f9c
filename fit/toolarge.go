package fit

import (
	"context"
	"slices"
	"strings"
)

// shedLevels are the summary sizes tried in turn: fewer top values first, so the
// summary always fits.
var shedLevels = []SummaryOptions{
	{TopValues: 20, TopByMetric: 10},
	{TopValues: 10, TopByMetric: 5},
	{TopValues: 5, TopByMetric: 3},
	{TopValues: 3, TopByMetric: 1},
	{TopValues: 0, TopByMetric: 0},
}

// tooLarge is step 4: a statistical summary of the complete data at the requested
// grain, with narrower queries that fit. An empty table is never one: it is
// answered as its CSV header.
//
// What is shed, in order, until it fits: the query echo (finishFitted), then top
// values (shedLevels), then suggestions but the first, then that one too.
//
// For a Large table (base nil) the summary is of its aggregates, and the
// narrower queries are computed from the coarser table in hand, if any.
func (p *pipeline) tooLarge(ctx context.Context, base *Table) (*Response, error) {
	if base != nil && base.Len() == 0 {
		return p.renderEmpty(base, p.meta)
	}
	meta := p.meta
	meta.Format = "summary"
	if p.opt.Report.SourceCallsSoFar != nil {
		meta.SourceCalls = p.opt.Report.SourceCallsSoFar()
	}
	meta.ReturnedRows = 0
	meta.TimeGranularity = &GrainChange{Requested: p.requested, Returned: p.requested}
	largest := shedLevels[0]
	var complete *Summary
	var fullTokens int
	var suggestions []Suggestion
	if base != nil {
		baseView := p.view(base)
		fullTokens = baseView.tokens
		suggestions = p.suggestions(baseView, p.meta)
		largest.MainMetric = p.mainMetric(base)
		complete = Summarize(base, largest)
		switch {
		case p.cmp != nil:
			// The totals first: a ratio's change is the difference of
			// the two windows' overall ratios.
			whole, err := p.askedWhole(p.cmp.asked, p.cmp.cmp.Base)
			if err != nil {
				return nil, err
			}
			if whole != nil {
				complete.overWhole(metricSummariesOf(whole))
			}
			p.compareSummary(complete, base)
		case p.source != nil && p.source != base:
			complete.overWhole(metricSummariesOf(p.source))
		}
	} else {
		var err error
		if complete, fullTokens, suggestions, err = p.largeSummary(ctx, largest, &meta); err != nil {
			return nil, err
		}
	}
	if suggestions == nil {
		suggestions = []Suggestion{}
	}
	levels := append([]SummaryOptions(nil), shedLevels...)
	last := len(levels) - 1
	// With no top values left, fewer suggestions: the first, then none.
	for range min(2, len(suggestions)) {
		levels = append(levels, levels[last])
	}
	var resp *Response
	for i, level := range levels {
		if i > last {
			suggestions = suggestions[:min(len(suggestions), len(levels)-1-i)]
		}
		s := complete.trim(level.TopValues, level.TopByMetric)
		if p.cmp != nil && i >= last {
			// A comparison's last levels: each metric and its change, the
			// largest mover each way, no prose on the columns.
			s.Movers = trimMovers(complete.Movers, 1)
			s.Metrics = slices.DeleteFunc(slices.Clone(s.Metrics), func(m MetricSummary) bool {
				return strings.HasSuffix(m.Field, CompareSuffix) || strings.HasSuffix(m.Field, ChangePctSuffix)
			})
			if i == len(levels)-1 && len(s.Metrics) > 0 {
				// The very last: the first metric and its change only.
				first := s.Metrics[0].Field
				s.Metrics = slices.DeleteFunc(s.Metrics, func(m MetricSummary) bool { return m.Field != first && m.Field != first+ChangeSuffix })
			}
			if meta.Comparison != nil {
				c := *meta.Comparison
				c.Columns = ""
				meta.Comparison = &c
			}
		}
		s.TimeGranularity = p.requested
		s.TokenEstimate = fullTokens
		s.TokenBudget = p.opt.Report.AnnouncedBudget
		tl := &TooLarge{Type: string(KindTooLarge), Summary: s,
			RequeryInstructions: RequeryInstructions{Operators: p.opt.Dialect.Operators, Suggestions: suggestions}}
		blocks, n, err := p.finishFitted(meta, func(m Meta) ([]string, error) {
			tl.Meta = &m
			b, err := MarshalText(tl)
			return []string{string(b)}, err
		}, func(m *Meta, n int) { m.TokenEstimate = n })
		if err != nil {
			return nil, err
		}
		m := p.lastMeta
		tl.Meta = &m
		resp = &Response{Kind: KindTooLarge, Blocks: blocks, Meta: m, TooLarge: tl}
		if p.fits(blocks, n) {
			break
		}
	}
	return resp, nil
}

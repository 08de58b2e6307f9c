package fit

import ()

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
// grain, with narrower queries that fit.
func (p *pipeline) tooLarge(base *Table) (*Response, error) {
	meta := p.meta
	meta.Format = "summary"
	if p.opt.SourceCallsSoFar != nil {
		meta.SourceCalls = p.opt.SourceCallsSoFar()
	}
	meta.ReturnedRows = 0
	meta.TimeGranularity = &GrainChange{Requested: p.requested, Returned: p.requested}
	baseView := p.view(base)
	fullTokens := baseView.header
	for _, r := range baseView.rows {
		fullTokens += r
	}
	metaJSON, err := marshalMeta(meta)
	if err != nil {
		return nil, err
	}
	suggestions := p.suggestions(baseView, p.opt.Counter.Estimate(metaJSON)+50)
	if suggestions == nil {
		suggestions = []Suggestion{}
	}
	var last *Response
	largest := shedLevels[0]
	largest.MainMetric = p.mainMetric(base)
	complete := Summarize(base, largest)
	for i, level := range shedLevels {
		s := complete.Trim(level.TopValues, level.TopByMetric)
		s.TimeGranularity = p.requested
		s.TokenEstimate = fullTokens
		s.TokenBudget = p.opt.AnnouncedBudget
		tl := &TooLarge{Type: string(KindTooLarge), Summary: s,
			RequeryInstructions: RequeryInstructions{Operators: p.opt.Operators, Suggestions: suggestions}}
		blocks, n, err := p.finish(meta, func(m Meta) ([]string, error) {
			tl.Meta = &m
			b, err := MarshalText(tl)
			return []string{string(b)}, err
		}, func(m *Meta, n int) { m.TokenEstimate = n })
		if err != nil {
			return nil, err
		}
		m := p.lastMeta
		tl.Meta = &m
		last = &Response{Kind: KindTooLarge, Blocks: blocks, Meta: m, TooLarge: tl}
		if n <= p.opt.Budget {
			return last, nil
		}
		if i == len(shedLevels)-1 && len(suggestions) > 1 {
			// Still too big with no top values: keep the first suggestion only.
			suggestions = suggestions[:1]
			tl.RequeryInstructions.Suggestions = suggestions
		}
	}
	return last, nil
}

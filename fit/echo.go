package fit

import (
	"bytes"
	"fmt"
)

// Echo is a shorter form of a query for _meta.query, used when the response does
// not fit the budget with the full one (a long IN list repeated in the echo).
type Echo struct {
	// Query is reported as _meta.query instead of the full query.
	Query any
	// Note tells the model what was shortened and how to get the whole query; it
	// is reported as a query_echo_abbreviated optimization.
	Note string
}

// Echo optimizations: _meta.query was shortened or left out so the response
// fits, and the query normalizations were counted instead of listed.
const (
	OptQueryEchoAbbreviated    = "query_echo_abbreviated"
	OptQueryEchoOmitted        = "query_echo_omitted"
	OptOptimizationsCollapsed  = "optimizations_collapsed"
	keptNormalizations         = 3
	queryEchoOmittedDetailText = "_meta.query is left out so the response fits the client's budget; the query ran with the arguments sent, with the changes listed here applied"
)

// echoLevel is one way of writing _meta's query echo (and, last, the query's
// normalizations), from the fullest to the shortest.
type echoLevel func(Meta) Meta

// echoLevels are the forms of _meta tried in turn for a response of query q:
// the full echo, each shorter form Options.Dialect.Echoes gives, the echo left out, and
// last the echo left out with the normalizations counted instead of listed.
func (p *pipeline) echoLevels(q any) []echoLevel {
	levels := []echoLevel{func(m Meta) Meta { return m }}
	if q == nil {
		return append(levels, p.collapseNormalizations)
	}
	if p.opt.Dialect.Echoes != nil {
		for _, e := range p.opt.Dialect.Echoes(q) {
			levels = append(levels, func(m Meta) Meta {
				m.Query = e.Query
				m.Optimizations = append(cloneOpts(m.Optimizations), Optimization{Type: OptQueryEchoAbbreviated, Detail: e.Note})
				return m
			})
		}
	}
	omit := func(m Meta) Meta {
		m.Query = nil
		m.Optimizations = append(cloneOpts(m.Optimizations), Optimization{Type: OptQueryEchoOmitted, Detail: queryEchoOmittedDetailText})
		return m
	}
	return append(levels, omit, func(m Meta) Meta { return p.collapseNormalizations(omit(m)) })
}

// collapseNormalizations keeps the first few of the query's normalizations
// (Options.Report.Optimizations, listed first in _meta) and counts the others by type.
func (p *pipeline) collapseNormalizations(m Meta) Meta {
	n := len(p.opt.Report.Optimizations)
	if n <= keptNormalizations || len(m.Optimizations) < n {
		return m
	}
	counts := map[string]int{}
	var order []string
	for _, o := range m.Optimizations[keptNormalizations:n] {
		if counts[o.Type] == 0 {
			order = append(order, o.Type)
		}
		counts[o.Type]++
	}
	detail := fmt.Sprintf("%d more query normalizations are not listed so the response fits the client's budget:", n-keptNormalizations)
	for i, t := range order {
		if i > 0 {
			detail += ","
		}
		detail += fmt.Sprintf(" %s ×%d", t, counts[t])
	}
	out := append(cloneOpts(m.Optimizations[:keptNormalizations]), Optimization{Type: OptOptimizationsCollapsed, Detail: detail})
	m.Optimizations = append(out, m.Optimizations[n:]...)
	return m
}

func cloneOpts(os []Optimization) []Optimization {
	return append([]Optimization(nil), os...)
}

// finishFitted is finish with _meta shed until the blocks fit: the query echo
// is abbreviated or left out before anything else is given up. It returns the
// first form that fits, or the shortest.
func (p *pipeline) finishFitted(meta Meta, build func(Meta) ([]string, error), setCount func(*Meta, int)) ([]string, int, error) {
	var blocks []string
	var n int
	var err error
	for _, level := range p.echoLevels(meta.Query) {
		if blocks, n, err = p.finish(level(meta), build, setCount); err != nil || p.fits(blocks, n) {
			break
		}
	}
	return blocks, n, err
}

// renderEmpty answers an empty table as its CSV header, whatever the budget: an
// empty result is never a summary, _meta is shed instead.
func (p *pipeline) renderEmpty(t *Table, meta Meta) (*Response, error) {
	meta.ReturnedRows = 0
	meta.Format = "csv"
	meta.TimeGranularity = &GrainChange{Requested: p.requested, Returned: grainOf(t)}
	var csvBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, t); err != nil {
		return nil, err
	}
	csvText := csvBuf.String()
	blocks, _, err := p.finishFitted(meta, func(m Meta) ([]string, error) {
		mb, err := marshalMeta(m)
		return []string{mb, csvText}, err
	}, func(m *Meta, n int) { m.TokenEstimate = n })
	if err != nil {
		return nil, err
	}
	return &Response{Kind: KindData, Blocks: blocks, Meta: p.lastMeta, Table: t}, nil
}

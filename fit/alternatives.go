package fit

import (
	"fmt"
	"slices"
	"strings"
)

// A coarsened answer keeps every row's money but loses the grain the user
// asked for (a monthly trend answered as totals). Its _meta then offers
// alternatives that keep the grain on fewer values: the top values of the
// main dimension at the requested grain, whose answer fits the budget, and
// the companion query folding the other values into one row per period, so
// that the two together count every amount. Both are priced like
// data_too_large suggestions (price): their rows and tokens are those of the
// answers they will get, computed from the requested-grain rows in hand.
//
// They are offered only where a re-run is exact: not after a limit cut the
// rows (the rows in hand are not all a narrower query would choose from), and
// the fold not for a selection (a metric filter would select whole folded
// rows, not sum the selected ones).

// withAlternatives adds the alternatives to a coarsened answer whose blocks
// (built by build from meta) fit, shedding them — the last one's fold first —
// before anything else: the answer with fewer or none is returned when they
// do not fit, its data and totals unchanged.
func (p *pipeline) withAlternatives(meta Meta, blocks []string, tokens int, build func(Meta) ([]string, error), setCount func(*Meta, int)) ([]string, error) {
	alts := p.alternatives(p.opt.Budget - tokens)
	if len(alts) == 0 {
		return blocks, nil
	}
	without := p.lastMeta
	for _, level := range shedAlternatives(alts) {
		meta.Alternatives = level
		b, n, err := p.finish(meta, build, setCount)
		if err != nil {
			return nil, err
		}
		if p.fits(b, n) {
			return b, nil
		}
	}
	p.lastMeta = without
	return blocks, nil
}

// leastAlternative is about the least an alternative costs in _meta: its
// query with a single value, and a description.
func (p *pipeline) leastAlternative(dim, value string) int {
	q := p.opt.Suggest(Narrowing{Grain: p.requested, Field: dim, Values: []string{value}})
	b, err := MarshalText(q)
	if q == nil || err != nil {
		return p.opt.Budget + 1
	}
	const description = 40 // and the field names, counts and brackets
	return p.opt.Counter.Estimate(string(b)) + description
}

// shedAlternatives are the lists tried in turn: all of them, then each time
// one less — the last one first without its fold, then without it.
func shedAlternatives(alts []Alternative) [][]Alternative {
	var levels [][]Alternative
	for k := len(alts); k > 0; k-- {
		levels = append(levels, alts[:k])
		if last := alts[k-1]; last.Rest != nil {
			last.Rest = nil
			levels = append(levels, append(slices.Clone(alts[:k-1]), last))
		}
	}
	return levels
}

// alternatives are the narrower queries at the requested grain offered with a
// coarsened answer: the largest top N of the main dimension by the main metric
// (ranked within each currency) whose answer fits, with its fold when that
// fits too. None when no top N fits, when a re-run could not be exact, or
// when room, the tokens the coarsened answer leaves, cannot take one.
func (p *pipeline) alternatives(room int) []Alternative {
	base := p.base
	if p.opt.Suggest == nil || base == nil || base.Len() == 0 || p.meta.RowsBeforeLimit > 0 {
		return nil
	}
	main, dim := p.mainMetric(base), mainDimension(base)
	if main == "" || dim == "" || foldsCase(p.source.Column(dim)) {
		return nil
	}
	rk := rankByMetric(base, dim, main)
	if len(rk.values) == 0 || room < p.leastAlternative(dim, rk.values[0].value) {
		return nil // not worth pricing: it would be shed
	}
	values := distinctValues(base.Column(dim))
	v := p.view(base)
	var alt *Alternative
	var top []string
	shrinking(p.dataRoom(p.meta), func(avail int) bool {
		n, rows, tokens := topNThatFits(v, dim, rk.values, avail, p.opt.Counter)
		if n == 0 || n == len(rk.values) {
			return true // none fits, or all would: nothing narrower to offer
		}
		top = valuesOf(rk.values[:n])
		narrow := Narrowing{Grain: p.requested, Field: dim, Values: top}
		meta, _ := p.answerMeta(base.Select(rowsOf(v, narrow, p.opt.Start, nil)))
		desc := fmt.Sprintf("%s as asked, for the top %d of %d %s by %s%s", p.requested, n, values, dim, main, rk.coverage(n))
		s, ok := p.price(meta, p.dataRoom(meta), desc, narrow, v, rows, tokens, nil)
		if ok {
			alt = &Alternative{Suggestion: s}
		}
		return ok
	})
	if alt == nil {
		return nil
	}
	if p.opt.Selection == "" {
		alt.Rest = p.fold(dim, top, values-len(top))
	}
	return []Alternative{*alt}
}

// fold is the companion of a top-N alternative: the requested grain, dim
// dropped, its values other than top folded into one row per period and
// remaining dimension. Its rows are the source's rows whose dim is none of top
// (case aside, as the source compares; an empty value too: activity step 1
// removed is folded in), grouped and then filtered by step 1 as the pipeline
// will do with the answer. Nil when it cannot be computed or does not fit.
func (p *pipeline) fold(dim string, top []string, others int) *Suggestion {
	src := p.source
	d := src.Column(dim)
	out := map[string]bool{}
	for _, v := range top {
		out[strings.ToLower(v)] = true
	}
	idx, unattributed := []int{}, false
	for r, s := range d.Strings {
		if !out[strings.ToLower(s)] {
			idx = append(idx, r)
			unattributed = unattributed || s == ""
		}
	}
	rows := src.Select(idx)
	grouped, dropped, err := regroup(rows, dim)
	if err != nil || grouped.Len() == 0 {
		return nil
	}
	meta, answer := p.answerMeta(grouped)
	slack := 2 * len(dropped) * answer.Len() // a non-additive cell the source computes: empty or a count
	av := p.view(answer)
	cost := av.tokens + slack
	var kept []string
	for _, c := range answer.Columns {
		if c.Role == RoleDimension && !c.Hidden {
			kept = append(kept, c.Name)
		}
	}
	narrow := Narrowing{Grain: p.requested, Field: dim, Values: top, Exclude: true, Dimensions: append([]string{}, kept...)}
	what := fmt.Sprintf("the other %d %s", others, dim)
	if unattributed {
		what += " and the activity with no " + dim
	}
	desc := fmt.Sprintf("With it, one row per %s folding %s: the two answers together count every amount", joinWords(append([]string{periodWord(p.requested)}, kept...), "and"), what)
	s, ok := p.price(meta, p.dataRoom(meta), desc, narrow, &grainView{grain: p.requested, t: answer}, answer.Len(), cost, &answerTable{t: answer, slack: slack, emptied: p.partitionsLeft(src, rows)})
	if !ok {
		return nil
	}
	return &s
}

// answerMeta is the _meta a narrower query's answer of rows t (at the requested
// grain, as the source returns them) starts with, and the rows step 1 keeps:
// step 1 run on them as the pipeline will.
func (p *pipeline) answerMeta(t *Table) (Meta, *Table) {
	m := p.received
	m.Optimizations = slices.Clone(m.Optimizations)
	m.Warnings = slices.Clone(m.Warnings)
	kept := p.filter(t, &m)
	return m, kept
}

// regroup drops dimension dim from t and merges the rows left equal, at t's
// grain: what a query without dim returns. Sum and ratio metrics are exact;
// non-additive ones cannot be merged and are returned in dropped.
func regroup(t *Table, dim string) (*Table, []string, error) {
	// The time column is grouped by as a dimension, and a constant day stands
	// in as the time column: a roll-up of that day to Total then merges exactly
	// the rows of equal period and remaining dimensions.
	const stand = "\x00day"
	proj := &Table{Grain: Daily, RowsBeforeLimit: t.Len(),
		Columns: []*Column{{Name: stand, Role: RoleTime, Strings: make([]string, t.Len())}}}
	var timeName string
	for _, c := range t.Columns {
		switch {
		case c.Name == dim:
			continue
		case c.Role == RoleTime:
			nc := *c
			nc.Role, timeName = RoleDimension, c.Name
			proj.Columns = append(proj.Columns, &nc)
		default:
			proj.Columns = append(proj.Columns, c)
		}
	}
	rolled, dropped, err := Rollup(proj, Total)
	if err != nil {
		return nil, nil, err
	}
	rolled.Grain = grainOf(t)
	if tc := rolled.Column(timeName); tc != nil {
		tc.Role = RoleTime
	}
	return rolled, dropped, nil
}

// foldsCase reports whether two values of a dimension differ only by case:
// the source compares IN and NOT_IN lists case aside, so a list of one would
// select the other too, and rows counted from the data in hand would not be
// the answer's.
func foldsCase(c *Column) bool {
	if c == nil {
		return true
	}
	seen := map[string]string{}
	for _, s := range c.Strings {
		l := strings.ToLower(s)
		if prev, ok := seen[l]; ok && prev != s {
			return true
		}
		seen[l] = s
	}
	return false
}

func distinctValues(c *Column) int {
	seen := map[string]struct{}{}
	for _, s := range c.Strings {
		if s != "" {
			seen[s] = struct{}{}
		}
	}
	return len(seen)
}

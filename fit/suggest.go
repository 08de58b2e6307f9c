package fit

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Narrowing is a narrower version of the query that produced a table, in the
// pipeline's terms; Options.Suggest turns it into the caller's query arguments.
// Every field left zero keeps the original query's setting.
type Narrowing struct {
	// Grain is the time granularity of the narrower query.
	Grain Grain
	// Field and Values keep only rows whose dimension Field is one of Values.
	Field  string
	Values []string
	// Metric and Above keep only rows whose Metric exceeds Above at Grain
	// (a filter on aggregated rows) when Metric is set.
	Metric string
	Above  float64
	// From and To narrow the date range (inclusive).
	From, To time.Time
	// Dimensions, when not nil, replaces the grouping dimensions.
	Dimensions []string
}

// grainView is the data in hand at one grain, with the token cost of its rows.
type grainView struct {
	grain  Grain
	t      *Table
	header int
	rows   []int
}

// suggestions computes narrower queries from the complete data in hand: their row
// counts and token estimates come from that data, and each fits the budget. When
// any narrower query of the kinds below fits, at least one is returned.
func (p *pipeline) suggestions(baseView *grainView, metaTokens int) []Suggestion {
	base := baseView.t
	if p.opt.Suggest == nil {
		return nil
	}
	avail := int(float64(p.opt.Budget-metaTokens) * 0.9) // room for estimator error
	if avail <= 0 {
		return nil
	}
	views := []*grainView{baseView}
	if p.opt.Selection == "" {
		for _, g := range coarser(grainOf(base)) {
			if !CanRollup(grainOf(base), g) {
				continue
			}
			if rolled, _, err := Rollup(base, g); err == nil {
				views = append(views, p.view(rolled))
			}
		}
	}
	main := p.mainMetric(base)
	var out []Suggestion
	add := func(desc string, n Narrowing, rows, tokens int) {
		if tokens > avail || rows == 0 {
			return
		}
		q := p.opt.Suggest(n)
		if q == nil {
			return
		}
		out = append(out, Suggestion{Description: desc, Query: q, ExpectedRows: rows, TokenEstimate: tokens + metaTokens})
	}

	dim := mainDimension(base)
	if dim != "" && main != "" {
		ranked := rankByMetric(base, dim, main)
		offered := 0
		for _, v := range views {
			if offered == 2 {
				break
			}
			n, rows, tokens := topNThatFits(v, dim, ranked, avail)
			if n == 0 || (n == len(ranked) && v.grain == grainOf(base)) {
				continue
			}
			share := coverage(ranked[:n])
			desc := fmt.Sprintf("Top %d %s by %s%s, %s", n, dim, main, share, v.grain)
			if n == len(ranked) {
				desc = fmt.Sprintf("All %d %s, %s", n, dim, v.grain)
			}
			before := len(out)
			add(desc, Narrowing{Grain: v.grain, Field: dim, Values: valuesOf(ranked[:n])}, rows, tokens)
			if len(out) > before {
				offered++
			}
		}
	}
	if main != "" && singleCurrency(base, main) {
		v := views[0]
		if thr, rows, tokens, ok := thresholdThatFits(v, main, avail); ok {
			add(fmt.Sprintf("Only rows with %s above %s, %s", main, formatAmount(thr), v.grain),
				Narrowing{Grain: v.grain, Metric: main, Above: thr}, rows, tokens)
		}
	}
	if from, rows, tokens, ok := p.shorterRange(views[0], avail); ok {
		add(fmt.Sprintf("A shorter date range: %s to %s, %s", from.Format(time.DateOnly), p.opt.End.Format(time.DateOnly), views[0].grain),
			Narrowing{Grain: views[0].grain, From: from, To: p.opt.End}, rows, tokens)
	}
	if len(out) == 0 {
		// Last resort: total grain without the widest dimensions until it fits.
		if n, rows, tokens, ok := p.fewerDimensions(baseView, avail); ok {
			desc := "Totals for the whole date range"
			if len(n.Dimensions) > 0 {
				desc += " by " + strings.Join(n.Dimensions, ", ")
			}
			add(desc, n, rows, tokens)
		}
	}
	return out
}

func (p *pipeline) view(t *Table) *grainView {
	h, rows := rowCosts(t, p.opt.Counter)
	return &grainView{grain: grainOf(t), t: t, header: h, rows: rows}
}

// mainMetric is the metric suggestions rank by: the configured one if the table
// has it, else the first visible Sum metric.
func (p *pipeline) mainMetric(t *Table) string {
	if c := t.Column(p.opt.MainMetric); c != nil && c.Role == RoleMetric && c.Aggregation == Sum {
		return c.Name
	}
	for _, c := range t.Columns {
		if c.Role == RoleMetric && c.Aggregation == Sum && !c.Hidden {
			return c.Name
		}
	}
	return ""
}

// mainDimension is the visible dimension with the most distinct values: the one
// that makes the result big (a currency column never is).
func mainDimension(t *Table) string {
	best, bestN := "", 1
	for _, c := range t.Columns {
		if c.Role != RoleDimension || c.Hidden || isCurrencyColumn(t, c.Name) {
			continue
		}
		seen := map[string]struct{}{}
		for _, s := range c.Strings {
			seen[s] = struct{}{}
		}
		if len(seen) > bestN {
			best, bestN = c.Name, len(seen)
		}
	}
	return best
}

func isCurrencyColumn(t *Table, name string) bool {
	for _, c := range t.Columns {
		if c.CurrencyColumn == name {
			return true
		}
	}
	return false
}

// ranked is a dimension value with its total of the main metric and its share of
// the total of its currency.
type ranked struct {
	value  string
	amount float64
	share  float64
}

// rankByMetric orders a dimension's values by their share of the main metric's
// total; shares are taken within each currency, so money of different currencies
// is never added together.
func rankByMetric(t *Table, dim, metric string) []ranked {
	d, m := t.Column(dim), t.Column(metric)
	cur := func(int) string { return m.Currency }
	if cc := t.Column(m.CurrencyColumn); m.CurrencyColumn != "" && cc != nil {
		cur = func(r int) string { return cc.Strings[r] }
	}
	type key struct{ value, currency string }
	amount := map[key]float64{}
	total := map[string]float64{}
	var order []key
	for r := range t.Len() {
		if m.IsNull(r) || d.Strings[r] == "" {
			continue
		}
		k := key{d.Strings[r], cur(r)}
		if _, ok := amount[k]; !ok {
			order = append(order, k)
		}
		amount[k] += m.Numbers[r]
		total[k.currency] += m.Numbers[r]
	}
	best := map[string]*ranked{}
	var out []*ranked
	for _, k := range order {
		share := 0.0
		if total[k.currency] > 0 {
			share = amount[k] / total[k.currency]
		}
		if b, ok := best[k.value]; ok {
			if share > b.share {
				b.share, b.amount = share, amount[k]
			}
			continue
		}
		r := &ranked{value: k.value, amount: amount[k], share: share}
		best[k.value] = r
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].share != out[j].share {
			return out[i].share > out[j].share
		}
		return out[i].value < out[j].value
	})
	res := make([]ranked, len(out))
	for i, r := range out {
		res[i] = *r
	}
	return res
}

func valuesOf(rs []ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.value
	}
	return out
}

func coverage(rs []ranked) string {
	var s float64
	for _, r := range rs {
		s += r.share
	}
	if s <= 0 || s > 1.0000001 {
		return ""
	}
	return fmt.Sprintf(" (%.0f%% of the total)", math.Floor(s*100))
}

// topNThatFits finds the largest N such that the rows of the top N values at this
// grain fit avail tokens; it returns N, their row count and tokens.
func topNThatFits(v *grainView, dim string, rs []ranked, avail int) (n, rows, tokens int) {
	d := v.t.Column(dim)
	if d == nil {
		return 0, 0, 0
	}
	idx := make(map[string]int, len(rs))
	for i, r := range rs {
		idx[r.value] = i
	}
	perRows := make([]int, len(rs))
	perTok := make([]int, len(rs))
	for r := range v.t.Len() {
		if i, ok := idx[d.Strings[r]]; ok {
			perRows[i]++
			perTok[i] += v.rows[r]
		}
	}
	tokens = v.header
	for i := range rs {
		if tokens+perTok[i] > avail {
			break
		}
		tokens += perTok[i]
		rows += perRows[i]
		n = i + 1
	}
	return n, rows, tokens
}

func singleCurrency(t *Table, metric string) bool {
	m := t.Column(metric)
	if m == nil || !m.Money || m.CurrencyColumn == "" {
		return true
	}
	cc := t.Column(m.CurrencyColumn)
	for _, s := range cc.Strings {
		if s != cc.Strings[0] {
			return false
		}
	}
	return true
}

// thresholdThatFits finds the smallest threshold such that the rows whose metric
// is strictly above it fit: the rows are the top ones by that metric.
func thresholdThatFits(v *grainView, metric string, avail int) (thr float64, rows, tokens int, ok bool) {
	m := v.t.Column(metric)
	if m == nil {
		return 0, 0, 0, false
	}
	order := make([]int, 0, v.t.Len())
	for r := range v.t.Len() {
		if !m.IsNull(r) {
			order = append(order, r)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return m.Numbers[order[i]] > m.Numbers[order[j]] })
	tokens = v.header
	k := 0
	for k < len(order) && tokens+v.rows[order[k]] <= avail {
		tokens += v.rows[order[k]]
		k++
	}
	if k == len(order) || k == 0 {
		return 0, 0, 0, false
	}
	thr = m.Numbers[order[k]]
	// Rows equal to the threshold are excluded (strictly above).
	rows, tokens = 0, v.header
	for _, r := range order[:k] {
		if m.Numbers[r] > thr {
			rows++
			tokens += v.rows[r]
		}
	}
	return thr, rows, tokens, rows > 0
}

// shorterRange finds the earliest start (a period boundary, so that no period is
// newly cut) such that the periods from it to the end fit.
func (p *pipeline) shorterRange(v *grainView, avail int) (time.Time, int, int, bool) {
	tc := timeColumnOf(v.t)
	if tc == nil || p.opt.Start.IsZero() || p.opt.End.IsZero() {
		return time.Time{}, 0, 0, false
	}
	perRows := map[string]int{}
	perTok := map[string]int{}
	for r := range v.t.Len() {
		perRows[tc.Strings[r]]++
		perTok[tc.Strings[r]] += v.rows[r]
	}
	labels := make([]string, 0, len(perRows))
	for l := range perRows {
		labels = append(labels, l)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(labels)))
	tokens, rows, k := v.header, 0, 0
	for k < len(labels) && tokens+perTok[labels[k]] <= avail {
		tokens += perTok[labels[k]]
		rows += perRows[labels[k]]
		k++
	}
	if k == 0 || k == len(labels) {
		return time.Time{}, 0, 0, false
	}
	from, err := periodStartOf(v.grain, labels[k-1])
	if err != nil {
		return time.Time{}, 0, 0, false
	}
	if from.Before(p.opt.Start) {
		from = p.opt.Start
	}
	return from, rows, tokens, true
}

func timeColumnOf(t *Table) *Column {
	for _, c := range t.Columns {
		if c.Role == RoleTime {
			return c
		}
	}
	return nil
}

// periodStartOf parses a time label at grain g into the first day of its period.
func periodStartOf(g Grain, label string) (time.Time, error) {
	if g == Monthly {
		return time.Parse("2006-01", label)
	}
	return time.Parse(time.DateOnly, label)
}

// fewerDimensions drops the widest dimensions, at total grain, until the totals fit.
func (p *pipeline) fewerDimensions(baseView *grainView, avail int) (Narrowing, int, int, bool) {
	base := baseView.t
	var dims []*Column
	for _, c := range base.Columns {
		if c.Role == RoleDimension && !c.Hidden {
			dims = append(dims, c)
		}
	}
	width := func(c *Column) int {
		seen := map[string]struct{}{}
		for _, s := range c.Strings {
			seen[s] = struct{}{}
		}
		return len(seen)
	}
	sort.SliceStable(dims, func(i, j int) bool { return width(dims[i]) < width(dims[j]) })
	costs := baseView.rows
	for keep := len(dims); keep >= 0; keep-- {
		kept := dims[:keep]
		groups := map[string]int{}
		var b strings.Builder
		for r := range base.Len() {
			b.Reset()
			for _, c := range kept {
				fmt.Fprintf(&b, "%d:%s|", len(c.Strings[r]), c.Strings[r])
			}
			if _, ok := groups[b.String()]; !ok {
				groups[b.String()] = costs[r]
			}
		}
		tokens := 16 // header
		for _, c := range groups {
			tokens += c
		}
		if tokens <= avail {
			names := []string{}
			for _, c := range base.Columns { // in the table's order
				if slices.ContainsFunc(kept, func(k *Column) bool { return k == c }) {
					names = append(names, c.Name)
				}
			}
			return Narrowing{Grain: Total, Dimensions: names}, len(groups), tokens, true
		}
	}
	return Narrowing{}, 0, 0, false
}

func formatAmount(v float64) string {
	return string(AppendNumber(nil, v, 2))
}

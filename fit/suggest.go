package fit

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Narrowing is a narrower version of the query that produced a table, in the
// pipeline's terms; Options.Suggest turns it into the caller's query arguments.
// Every field left zero keeps the original query's setting.
type Narrowing struct {
	// Grain is the time granularity of the narrower query.
	Grain Grain
	// Field and Values keep only rows whose dimension Field is one of Values
	// (or, with Exclude, none of them: an empty value is none of them).
	Field   string
	Values  []string
	Exclude bool
	// Metric and Above keep only rows whose Metric exceeds Above at Grain
	// (a filter on aggregated rows) when Metric is set.
	Metric string
	Above  float64
	// From and To narrow the date range (inclusive).
	From, To time.Time
	// Dimensions, when not nil, replaces the grouping dimensions.
	Dimensions []string
	// Limit, when positive, replaces the query's top-N limit (same sort).
	Limit int
}

// grainView is the data in hand at one grain, with the cost of its rows in
// token units of the budget (pipeline.cost: tokens, or bytes or lines scaled to
// the budget when the client cuts by those), and their tokens.
type grainView struct {
	grain  Grain
	t      *Table
	header int
	rows   []int
	// tokens is the estimated tokens of the whole table's CSV.
	tokens int
}

// suggestions computes narrower queries from the complete data in hand: their row
// counts and token estimates come from that data, and each fits the budget. When
// any narrower query of the kinds below fits, at least one is returned.
//
// Each is re-run-exact: its rows and grain are the ones promised, and its
// token_estimate counts the whole answer it will get, _meta included with its
// own query echo (shortened, as the pipeline will shorten it, when the full one
// would not fit). meta is the _meta of the response in hand.
func (p *pipeline) suggestions(baseView *grainView, meta Meta) []Suggestion {
	base := baseView.t
	if p.opt.Suggest == nil {
		return nil
	}
	dataAvail := p.dataRoom(meta)
	if dataAvail <= 0 {
		return nil
	}
	var out []Suggestion
	add := func(desc string, n Narrowing, v *grainView, rows, cost int, answer *answerTable) bool {
		s, ok := p.price(meta, dataAvail, desc, n, v, rows, cost, answer)
		if ok {
			out = append(out, s)
		}
		return ok
	}

	if meta.RowsBeforeLimit > 0 { // a limit cut the rows (Fit saw it on the source's table)
		// The rows in hand are the first ones of a top-N: any other narrowing
		// would select among rows never seen (a value's rows beyond the cut), so
		// the only exact one is a smaller limit with the same sort.
		part := p.limitPartition(base)
		shrinking(dataAvail, func(avail int) bool {
			k, rows, tokens := prefixThatFits(baseView, part, avail)
			if k == 0 || rows >= base.Len() {
				return true // none smaller fits better
			}
			each := ""
			if part != nil {
				each = " of each " + part.Name
			}
			return add(fmt.Sprintf("The first %d rows%s in the same order (limit %d), %s", k, each, k, baseView.grain),
				Narrowing{Limit: k}, baseView, rows, tokens, nil)
		})
		return out
	}

	views := []*grainView{baseView}
	if p.opt.Selection == "" {
		for _, g := range coarser(grainOf(base)) {
			if !canRollup(grainOf(base), g) || p.skipGrain(g) {
				continue
			}
			if rolled, err := p.rolledAt(base, g); err == nil && rolled != nil {
				views = append(views, p.view(rolled))
			}
		}
	}
	main := p.mainMetric(base)

	dim := mainDimension(base)
	if dim != "" && main != "" {
		rk := rankByMetric(base, dim, main)
		offered := 0
		for _, v := range views {
			if offered == 2 {
				break
			}
			n, rows, tokens := topNThatFits(v, dim, rk.values, dataAvail, p.opt.Counter)
			if n == 0 || (n == len(rk.values) && v.grain == grainOf(base)) {
				continue
			}
			desc := fmt.Sprintf("Top %d %s by %s%s, %s", n, dim, main, rk.coverage(n), v.grain)
			if n == len(rk.values) {
				desc = fmt.Sprintf("All %d %s, %s", n, dim, v.grain)
			}
			if add(desc, Narrowing{Grain: v.grain, Field: dim, Values: valuesOf(rk.values[:n])}, v, rows, tokens, nil) {
				offered++
			}
		}
	}
	if main != "" && singleCurrency(base, main) {
		v := views[0]
		shrinking(dataAvail, func(avail int) bool {
			thr, rows, tokens, ok := thresholdThatFits(v, main, avail)
			return !ok || add(fmt.Sprintf("Only rows with %s above %s, %s", main, formatAmount(thr), v.grain),
				Narrowing{Grain: v.grain, Metric: main, Above: thr}, v, rows, tokens, nil)
		})
	}
	// A shorter range of a comparison moves the comparison window too
	// (previous_period follows the range): its rows are not those in hand.
	shrinking(dataAvail, func(avail int) bool {
		if p.cmp != nil {
			return true
		}
		from, rows, tokens, ok := p.shorterRange(views[0], avail)
		return !ok || add(fmt.Sprintf("A shorter date range: %s to %s, %s", from.Format(time.DateOnly), p.opt.End.Format(time.DateOnly), views[0].grain),
			Narrowing{Grain: views[0].grain, From: from, To: p.opt.End}, views[0], rows, tokens, nil)
	})
	if len(out) == 0 && p.opt.Selection == "" {
		// Last resort: total grain without the widest dimensions until it fits.
		// Not for rows selected at their grain: their totals would be of other
		// rows.
		if n, rolled, slack, cost, ok := p.fewerDimensions(baseView, dataAvail); ok {
			desc := "Totals for the whole date range"
			if len(n.Dimensions) > 0 {
				desc += " by " + strings.Join(n.Dimensions, ", ")
			}
			add(desc, n, &grainView{grain: Total, t: base}, rolled.Len(), cost, &answerTable{t: rolled, slack: slack})
		}
	}
	return out
}

// dataRoom is what the data of a narrower answer may take: the budget less
// room for estimator error, less what that answer's _meta costs at least (its
// echo shortened; each narrowing is checked with its own _meta by price), less
// the worst case of partitions it leaves without rows, each named in a warning
// of its own. meta is the _meta of the response in hand.
func (p *pipeline) dataRoom(meta Meta) int {
	avail := int(float64(p.opt.Budget) * 0.9) // room for estimator error
	dataAvail := avail - p.metaFloor(meta, avail)
	if k := len(p.opt.Partitions.Keys); k >= 2 {
		dataAvail -= partitionNoticeHead + (k-1)*partitionNoticeEach
	}
	return dataAvail
}

// answerTable is the table a narrower query will return when it is not a
// subset of the view's rows (fewer dimensions: rolled up), with slack tokens
// and bytes for its cells that cannot be foreseen, and how many partitions it
// may leave without rows (partitionsLeft).
type answerTable struct {
	t       *Table
	slack   int
	emptied int
}

// price offers a narrowing of view v whose rows, by estimate, take cost
// tokens of dataAvail. Its rows are then written out and counted exactly,
// with the _meta its answer will carry (meta's, with the narrowing's query),
// so the suggestion's token_estimate is what the answer will count; false
// when it does not fit or cannot be expressed. answer, when not nil, is the
// table the narrower query will return when it is not a subset of v's rows.
func (p *pipeline) price(meta Meta, dataAvail int, desc string, n Narrowing, v *grainView, rows, cost int, answer *answerTable) (Suggestion, bool) {
	if cost > dataAvail || rows == 0 {
		return Suggestion{}, false
	}
	q := p.opt.Suggest(n)
	if q == nil {
		return Suggestion{}, false
	}
	var csvTable *Table
	slack, emptied := 0, 0
	if idx := rowsOf(v, n, p.opt.Start, p.limitPartition(v.t)); idx != nil {
		csvTable = v.t.Select(idx)
		emptied = p.partitionsLeft(v.t, csvTable)
	} else if answer != nil {
		csvTable, slack, emptied = answer.t, answer.slack, answer.emptied
	} else {
		return Suggestion{}, false
	}
	if rows = csvTable.Len(); rows == 0 {
		return Suggestion{}, false
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, csvTable); err != nil {
		return Suggestion{}, false
	}
	data := buf.String()
	tokens := p.opt.Counter.Exact(data) + slack
	ext := p.measure([]string{data})
	ext.Bytes += slack
	metaTokens, ok := p.answerMetaTokens(withoutEmptied(meta, n), q, v.grain, rows, tokens, ext, emptied)
	if !ok {
		return Suggestion{}, false
	}
	return Suggestion{Description: desc, Query: q, ExpectedRows: rows, TokenEstimate: tokens + metaTokens}, true
}

// shrinking tries a search with the room in hand, then with less: a narrowing
// chosen by estimate may prove, counted exactly with its answer's _meta, not
// to fit, and a smaller one of the same kind then may. try reports whether it
// is done (offered one, or found none to offer).
func shrinking(avail int, try func(avail int) bool) {
	for _, f := range []int{10, 9, 8} {
		if try(avail * f / 10) {
			return
		}
	}
}

// withoutEmptied is meta less the warnings about rows with empty dimensions
// that narrowing n leaves no room for: it keeps only named values of one of
// those dimensions, or groups by none of them.
func withoutEmptied(meta Meta, n Narrowing) Meta {
	gone := func(w Warning) bool {
		if len(w.aboutEmpty) == 0 {
			return false
		}
		if n.Field != "" && !n.Exclude && len(n.Values) > 0 && slices.Contains(w.aboutEmpty, n.Field) && !slices.Contains(n.Values, "") {
			return true
		}
		return n.Dimensions != nil && !slices.ContainsFunc(w.aboutEmpty, func(f string) bool { return slices.Contains(n.Dimensions, f) })
	}
	if slices.ContainsFunc(meta.Warnings, gone) {
		meta.Warnings = slices.DeleteFunc(slices.Clone(meta.Warnings), gone)
	}
	return meta
}

// suggestedMeta is the _meta a suggested query's answer will carry: this
// response's (its normalizations and warnings), with the suggestion's query, its
// grain and row count, and a token estimate of five digits.
func (p *pipeline) suggestedMeta(meta Meta, q any, g Grain, rows int) Meta {
	meta.Query = q
	meta.Format = "csv"
	meta.OriginalRows, meta.ReturnedRows, meta.RowsBeforeLimit = rows, rows, 0
	meta.TokenEstimate = 99999
	meta.TokenBudget = p.opt.Report.AnnouncedBudget
	meta.BindingLimit = "" // it fits as asked
	meta.TimeGranularity = &GrainChange{Requested: g, Returned: g}
	meta.Warnings = append(slices.Clone(meta.Warnings), p.partialWarning(g)...)
	return meta
}

// answerMetaTokens estimates the tokens of the _meta of a suggestion's answer
// at the first echo level the pipeline will keep with the answer's data (of
// dataTokens tokens and extent data) within every limit (the full echo when it
// fits, as the answer will have it); false when no level leaves noticeRoom
// free — the answer could not take a warning of its own and still fit (the
// pipeline would shorten the echo then: some level must allow it).
func (p *pipeline) answerMetaTokens(meta Meta, q any, g Grain, rows, dataTokens int, data Extent, emptied int) (int, bool) {
	room := noticeRoom(p.opt.Budget)
	if emptied > 0 {
		room += partitionNoticeHead + emptied*partitionNoticeEach
	}
	m := p.suggestedMeta(meta, q, g, rows)
	estimate, headroom := -1, false
	for _, level := range p.echoLevels(q) {
		b, err := marshalMeta(level(m))
		if err != nil {
			return 0, false
		}
		n := p.opt.Counter.Exact(b) + metaSlack
		whole := p.measure([]string{b})
		whole.Bytes += data.Bytes + 1 + metaSlack // the separator; digits that may grow
		whole.Lines += data.Lines
		c := p.cost(dataTokens+n, whole)
		if c <= p.opt.Budget && estimate < 0 {
			estimate = n
		}
		if c+room <= p.opt.Budget {
			headroom = true
			break
		}
	}
	return estimate, estimate >= 0 && headroom
}

// noticeRoom is what a suggested answer keeps free for warnings of its own
// that this answer lacks (an account whose rows the narrower query filters
// out, blank cells explained): the source's diagnosis of the narrower query
// cannot be foreseen from the rows in hand.
func noticeRoom(budget int) int { return max(48, budget/10) }

// A narrower answer that leaves a partition (an account) without rows says so
// for each one ("… returned no rows: none of its data matches …"): what such a
// warning costs, for its head and for each partition named.
const (
	partitionNoticeHead = 24
	partitionNoticeEach = 40
)

// partitionsLeft is how many partitions (Options.Partitions.Keys) a narrower
// answer of rows sel, out of the view's rows all, may leave without any row:
// those all has and sel lacks when the table has the partition column; else,
// when sel is a strict subset, every partition but one (nothing tells which
// remain).
func (p *pipeline) partitionsLeft(all, sel *Table) int {
	if sel.Len() >= all.Len() || len(p.opt.Partitions.Keys) < 2 {
		return 0
	}
	a, s := all.Column(p.opt.Partitions.Column), sel.Column(p.opt.Partitions.Column)
	if p.opt.Partitions.Column == "" || a == nil || s == nil {
		return len(p.opt.Partitions.Keys) - 1
	}
	in := map[string]bool{}
	for _, k := range s.Strings {
		in[k] = true
	}
	left := map[string]bool{}
	for _, k := range a.Strings {
		if !in[k] {
			left[k] = true
		}
	}
	return len(left)
}

// metaSlack covers what a suggested answer's _meta may add to this one's: an
// elapsed time, a source call count, a removal count of more digits.
const metaSlack = 24

// metaFloor is the least a suggested answer's _meta costs: this response's with
// the query echo at the first level that takes at most a quarter of avail.
func (p *pipeline) metaFloor(meta Meta, avail int) int {
	m := p.suggestedMeta(meta, meta.Query, p.requested, 0)
	n := 0
	for _, level := range p.echoLevels(meta.Query) {
		b, err := marshalMeta(level(m))
		if err != nil {
			break
		}
		if n = p.opt.Counter.Estimate(b) + metaSlack; n*4 <= avail {
			break
		}
	}
	return n
}

// rowsOf are the rows of view v a narrowing keeps, in order; nil when they are
// not a subset of v's (fewer dimensions).
func rowsOf(v *grainView, n Narrowing, start time.Time, part *Column) []int {
	if n.Dimensions != nil {
		return nil
	}
	keep := func(int) bool { return true }
	switch {
	case n.Limit > 0:
		pos := limitPositions(v.t, part)
		keep = func(r int) bool { return pos[r] < n.Limit }
	case n.Field != "":
		d := v.t.Column(n.Field)
		if d == nil {
			return nil
		}
		in := map[string]bool{}
		for _, s := range n.Values {
			in[s] = true
		}
		keep = func(r int) bool { return in[d.Strings[r]] != n.Exclude }
	case n.Metric != "":
		m := v.t.Column(n.Metric)
		if m == nil {
			return nil
		}
		keep = func(r int) bool { return !m.IsNull(r) && m.Numbers[r] > n.Above }
	case !n.From.IsZero():
		tc := timeColumnOf(v.t)
		if tc == nil {
			return nil
		}
		keep = func(r int) bool {
			from, err := periodStartOf(v.grain, tc.Strings[r])
			return err == nil && (!from.Before(n.From) || !n.From.After(start))
		}
	}
	idx := []int{}
	for r := range v.t.Len() {
		if keep(r) {
			idx = append(idx, r)
		}
	}
	return idx
}

// limitPartition is the column within each of whose values a limit applies
// (Options.Dialect.LimitPartition), when the table has it.
func (p *pipeline) limitPartition(t *Table) *Column {
	if p.opt.Dialect.LimitPartition == "" {
		return nil
	}
	c := t.Column(p.opt.Dialect.LimitPartition)
	if c == nil || c.Role == RoleMetric {
		return nil
	}
	return c
}

// limitPositions is each row's place (0-based) among the rows of its partition
// (all rows when part is nil), in table order: a limit K keeps the rows whose
// place is below K.
func limitPositions(t *Table, part *Column) []int {
	pos := make([]int, t.Len())
	seen := map[string]int{}
	for r := range pos {
		key := ""
		if part != nil {
			key = part.Strings[r]
		}
		pos[r] = seen[key]
		seen[key]++
	}
	return pos
}

// prefixThatFits is the largest K such that the first K rows (of each value
// of part, when set) fit avail tokens, with how many rows that is.
func prefixThatFits(v *grainView, part *Column, avail int) (k, rows, tokens int) {
	pos := limitPositions(v.t, part)
	byPlace := map[int][]int{} // place → rows at that place
	for r, p := range pos {
		byPlace[p] = append(byPlace[p], r)
	}
	tokens = v.header
	for {
		next := byPlace[k]
		if len(next) == 0 {
			return k, rows, tokens
		}
		cost := 0
		for _, r := range next {
			cost += v.rows[r]
		}
		if tokens+cost > avail {
			return k, rows, tokens
		}
		tokens += cost
		rows += len(next)
		k++
	}
}

func (p *pipeline) view(t *Table) *grainView {
	h, rows := rowCosts(t, p.opt.Counter)
	v := &grainView{grain: grainOf(t), t: t, header: h, rows: rows, tokens: h}
	for _, r := range rows {
		v.tokens += r
	}
	if p.hasExtentLimits() {
		hb, rb := rowBytes(t)
		v.header = p.cost(h, Extent{Bytes: hb, Lines: 1})
		for i := range rows {
			rows[i] = p.cost(rows[i], Extent{Bytes: rb[i], Lines: 1})
		}
	}
	return v
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
		if c.Role != RoleDimension || c.Hidden || c.Unit || isCurrencyColumn(t, c.Name) {
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
// the total of its currency (its largest, when it has amounts in several).
type ranked struct {
	value   string
	amount  float64
	share   float64
	amounts map[string]float64 // per currency
}

// ranking is a dimension's values by their share of the main metric, with the
// metric's totals per currency.
type ranking struct {
	values []ranked
	totals map[string]float64
	order  []string // currencies in order of appearance
}

// rankByMetric orders a dimension's values by their share of the main metric's
// total; shares are taken within each currency, so money of different currencies
// is never added together.
func rankByMetric(t *Table, dim, metric string) ranking {
	d, m := t.Column(dim), t.Column(metric)
	cur := func(int) string { return m.Currency }
	if cc := t.Column(m.CurrencyColumn); m.CurrencyColumn != "" && cc != nil {
		cur = func(r int) string { return cc.Strings[r] }
	}
	type key struct{ value, currency string }
	amount := map[key]float64{}
	rk := ranking{totals: map[string]float64{}}
	var order []key
	for r := range t.Len() {
		if m.IsNull(r) || d.Strings[r] == "" {
			continue
		}
		k := key{d.Strings[r], cur(r)}
		if _, ok := amount[k]; !ok {
			order = append(order, k)
		}
		if _, ok := rk.totals[k.currency]; !ok {
			rk.order = append(rk.order, k.currency)
		}
		amount[k] += m.Numbers[r]
		rk.totals[k.currency] += m.Numbers[r]
	}
	best := map[string]*ranked{}
	var out []*ranked
	for _, k := range order {
		share := 0.0
		if rk.totals[k.currency] > 0 {
			share = amount[k] / rk.totals[k.currency]
		}
		b, ok := best[k.value]
		if !ok {
			b = &ranked{value: k.value, amount: amount[k], share: share, amounts: map[string]float64{}}
			best[k.value] = b
			out = append(out, b)
		} else if share > b.share {
			b.share, b.amount = share, amount[k]
		}
		b.amounts[k.currency] += amount[k]
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].share != out[j].share {
			return out[i].share > out[j].share
		}
		return out[i].value < out[j].value
	})
	rk.values = make([]ranked, len(out))
	for i, r := range out {
		rk.values[i] = *r
	}
	return rk
}

func valuesOf(rs []ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.value
	}
	return out
}

// coverage says what share of the main metric the first n values hold: of the
// total, or, when the values span currencies, of each currency's total (money
// of different currencies is never added up). Empty when it cannot be said.
func (rk ranking) coverage(n int) string {
	sums := map[string]float64{}
	for _, r := range rk.values[:n] {
		for c, a := range r.amounts {
			sums[c] += a
		}
	}
	var parts []string
	for _, c := range rk.order {
		if rk.totals[c] <= 0 {
			return ""
		}
		s := sums[c] / rk.totals[c]
		if s < 0 || s > 1.0000001 {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", c, math.Floor(s*100)))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (%.0f%% of the total)", math.Floor(sums[rk.order[0]]/rk.totals[rk.order[0]]*100))
	}
	return fmt.Sprintf(" (%s of each currency's total)", strings.Join(parts, ", "))
}

// topNThatFits finds the largest N such that the rows of the top N values at this
// grain fit avail tokens; it returns N, their row count and tokens.
// Each value also costs its place in the suggested query's IN list, which the
// answer's _meta echoes.
func topNThatFits(v *grainView, dim string, rs []ranked, avail int, c TokenCounter) (n, rows, tokens int) {
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
	for i, r := range rs {
		perTok[i] += c.Estimate(strconv.Quote(r.value)) + 1
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
func periodStartOf(g Grain, label string) (time.Time, error) { return ParsePeriod(g, label) }

// fewerDimensions drops the widest dimensions, at total grain, until the totals
// fit. It returns the totals table the narrower query answers, the slack its
// non-additive cells need (they are empty here, a count there) and its cost.
func (p *pipeline) fewerDimensions(baseView *grainView, avail int) (Narrowing, *Table, int, int, bool) {
	base := baseView.t
	var dims []*Column
	for _, c := range base.Columns {
		if c.Role == RoleDimension && !c.Hidden && !(p.cmp != nil && c.Unit && p.cmp.cur.Column(c.Name) == nil) {
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
	for keep := len(dims); keep >= 0; keep-- {
		kept := dims[:keep]
		// The totals by the kept dimensions, rolled up from the rows in hand,
		// are what the narrower query answers: cost them as they will be
		// written (sums have more digits than the rows they add up).
		proj := &Table{Grain: base.Grain, RowsBeforeLimit: base.Len()}
		for _, c := range base.Columns {
			if c.Role != RoleDimension || c.Hidden || slices.Contains(kept, c) {
				proj.Columns = append(proj.Columns, c)
			}
		}
		rolled, dropped, err := Rollup(proj, Total)
		if p.cmp != nil {
			rolled, dropped, err = p.comparedTotals(kept)
		}
		if err != nil {
			continue // e.g. a money column whose currency column was dropped
		}
		v := p.view(rolled)
		slack := 2 * len(dropped) * rolled.Len() // a non-additive cell: empty or a count
		cost := v.header + slack
		for _, c := range v.rows {
			cost += c
		}
		if p.cmp == nil {
			// The narrower answer's own step 1 removes the totals whose
			// judged dimensions are all empty (an ad with no country, once
			// ad_name is dropped): they are not among its rows, and what
			// they carried, in its validation_filter, costs about what
			// they would as rows.
			if kept, removed, _ := dropEmptyDimensionRows(rolled); len(removed) > 0 {
				for _, r := range removed {
					slack += v.rows[r]
				}
				rolled = kept
			}
		}
		if cost <= avail {
			names := []string{}
			for _, c := range base.Columns { // in the table's order
				if slices.ContainsFunc(kept, func(k *Column) bool { return k == c }) {
					names = append(names, c.Name)
				}
			}
			return Narrowing{Grain: Total, Dimensions: names}, rolled, slack, cost, true
		}
	}
	return Narrowing{}, nil, 0, 0, false
}

func formatAmount(v float64) string {
	return string(appendNumber(nil, v, 2))
}

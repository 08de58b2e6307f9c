package fit

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// SummaryOptions shape a summary.
type SummaryOptions struct {
	// MainMetric ranks values in TopByMetric ("spend" for adsmcp). It must name a
	// visible Sum metric of the table; otherwise (or when empty) the first visible
	// Sum metric is used, and when there is none TopByMetric is omitted.
	MainMetric string
	// TopValues is how many most-frequent values to list per dimension (PRODUCT: 20).
	TopValues int
	// TopByMetric is how many values to list by main metric per dimension (and per
	// currency for money).
	TopByMetric int
}

// Summarize computes the summary of the whole table t: every row counts, nothing
// is sampled. TokenEstimate and TokenBudget are left for the caller to fill.
//
// Dimensions: every visible dimension column and the time column, in table order.
// Each has its number of distinct values (the empty string "" is a value like any
// other, listed as ""), its most frequent values (ties by value ascending) and the
// values with the largest total of the main metric with their share of it. The time
// column also carries its first and last labels. When the main metric is money
// spread over several currencies, the ranking and the shares are per currency
// (ValueShare.Currency set, currencies in ascending order): amounts in different
// currencies are never added up.
//
// Metrics: every visible metric column, in table order; money, and ratios whose
// parts are money (cost per click, return on ad spend), get one MetricSummary per
// currency, in ascending currency order. Min and max are over the rows with a value
// (EmptyValues counts the others). Sum metrics carry their sum and average;
// ratios carry Overall = Σnumerator / Σdenominator × Scale, each part summed over
// its rows with a value (nil when the denominator sums to 0) and no average, since
// ratios are never averaged; non-additive metrics carry an average per row but no
// sum and no overall. Money sums, extremes and averages are rounded to the
// currency's minor unit; everything else to 4 decimals.
func Summarize(t *Table, opt SummaryOptions) *Summary {
	n := t.Len()
	s := &Summary{
		TotalRows:       n,
		TimeGranularity: t.Grain,
		Dimensions:      []DimensionSummary{},
		Metrics:         []MetricSummary{},
	}
	if s.TimeGranularity == "" {
		s.TimeGranularity = Total
	}
	groups := map[string]*currencyGroups{} // by currency column or fixed currency
	groupsOf := func(c *Column) *currencyGroups {
		src := moneySource(t, c)
		key := ""
		if src != nil {
			key = "currency:" + src.Currency
			if src.CurrencyColumn != "" {
				key = "column:" + src.CurrencyColumn
			}
		}
		if g, ok := groups[key]; ok {
			return g
		}
		g := newCurrencyGroups(t, src)
		groups[key] = g
		return g
	}

	var main *mainMetric
	if c := pickMainMetric(t, opt.MainMetric); c != nil {
		main = newMainMetric(c, groupsOf(c))
	}

	// Every dimension and every metric is one independent task writing its own
	// slot; large tables spread them over the CPUs.
	var dims []*Column
	var metrics []*Column
	var metricGroups []*currencyGroups
	for _, c := range t.Columns {
		switch {
		case c.Hidden:
		case c.Role == RoleMetric:
			metrics = append(metrics, c)
			metricGroups = append(metricGroups, groupsOf(c))
		default:
			dims = append(dims, c)
		}
	}
	s.Dimensions = make([]DimensionSummary, len(dims))
	perMetric := make([][]MetricSummary, len(metrics))
	workers := 1
	if n >= parallelRows {
		workers = max(1, min(runtime.GOMAXPROCS(0), len(dims)+len(metrics)))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var ids []int32 // this worker's scratch: each row's value id
			for {
				i := int(next.Add(1)) - 1
				switch {
				case i < len(dims):
					if main != nil && ids == nil {
						ids = make([]int32, n)
					}
					s.Dimensions[i] = summarizeDimension(dims[i], main, ids, opt)
				case i < len(dims)+len(metrics):
					i -= len(dims)
					perMetric[i] = summarizeMetric(t, metrics[i], metricGroups[i])
				default:
					return
				}
			}
		})
	}
	wg.Wait()
	for _, ms := range perMetric {
		s.Metrics = append(s.Metrics, ms...)
	}
	return s
}

// parallelRows is the table size from which Summarize uses several goroutines.
const parallelRows = 50_000

// trim returns a copy of s listing at most topValues most frequent values and at
// most topByMetric values by main metric (per currency) for each dimension, so a
// caller shrinking a summary to its budget need not summarize the table again.
// Negative limits keep the lists as they are.
func (s *Summary) trim(topValues, topByMetric int) *Summary {
	out := *s
	out.Dimensions = make([]DimensionSummary, len(s.Dimensions))
	for i, d := range s.Dimensions {
		if topValues >= 0 && len(d.TopValues) > topValues {
			d.TopValues = slices.Clip(d.TopValues[:topValues])
		}
		if topByMetric >= 0 {
			var kept []ValueShare
			run := 0
			for j, v := range d.TopByMetric {
				if j == 0 || v.Currency != d.TopByMetric[j-1].Currency {
					run = 0
				}
				if run < topByMetric {
					kept = append(kept, v)
				}
				run++
			}
			if d.TopByMetric != nil && kept == nil {
				kept = []ValueShare{}
			}
			d.TopByMetric = kept
		}
		out.Dimensions[i] = d
	}
	out.Metrics = slices.Clone(s.Metrics)
	out.Movers = trimMovers(s.Movers, max(1, topByMetric))
	return &out
}

// moneySource is the column whose currency governs c: c itself when it is money,
// else a money part of a ratio-like column (return on ad spend is a ratio of two
// amounts: dimensionless, yet meaningless across currencies), else nil.
func moneySource(t *Table, c *Column) *Column {
	if c.Money {
		return c
	}
	if c.Numerator != "" {
		for _, name := range []string{c.Numerator, c.Denominator} {
			if p := t.Column(name); p != nil && p.Money {
				return p
			}
		}
	}
	return nil
}

// currencyGroups splits the rows by currency. Non-money columns have a single
// group with no currency.
type currencyGroups struct {
	names []string // per group id, in order of first appearance
	ids   []int32  // per row; nil when every row is in group 0
	order []int32  // group ids by ascending name
}

func newCurrencyGroups(t *Table, money *Column) *currencyGroups {
	g := &currencyGroups{}
	var cc *Column
	if money != nil && money.CurrencyColumn != "" {
		if c := t.Column(money.CurrencyColumn); c != nil && c.Role != RoleMetric && len(c.Strings) == t.Len() {
			cc = c
		}
	}
	switch {
	case cc == nil && money != nil:
		g.names = []string{money.Currency}
	case cc == nil:
		g.names = []string{""}
	default:
		idx := map[string]int32{}
		g.ids = make([]int32, len(cc.Strings))
		prev, prevID := "", int32(-1)
		for r, v := range cc.Strings {
			if prevID < 0 || v != prev {
				id, ok := idx[v]
				if !ok {
					id = int32(len(g.names))
					idx[v] = id
					g.names = append(g.names, v)
				}
				prev, prevID = v, id
			}
			g.ids[r] = prevID
		}
		if len(g.names) == 0 { // no rows: one empty group, so the metric is still listed
			g.names = []string{money.Currency}
		}
	}
	g.order = byName(g.names)
	return g
}

// byName is the indexes of names in ascending name order: currency groups
// are listed by currency.
func byName(names []string) []int32 {
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	return order
}

func (g *currencyGroups) of(r int) int32 {
	if g.ids == nil {
		return 0
	}
	return g.ids[r]
}

// pickMainMetric is the visible Sum metric named name, else the first visible Sum
// metric, else nil.
func pickMainMetric(t *Table, name string) *Column {
	if c := t.Column(name); c != nil && c.Role == RoleMetric && c.Aggregation == Sum && !c.Hidden {
		return c
	}
	for _, c := range t.Columns {
		if c.Role == RoleMetric && c.Aggregation == Sum && !c.Hidden {
			return c
		}
	}
	return nil
}

// mainMetric is the metric values are ranked by, with its total per currency and
// the rows that have a value, per currency.
type mainMetric struct {
	col    *Column
	groups *currencyGroups
	totals []float64 // per group
	rows   [][]int32 // per group: the rows with a value, ascending
}

func newMainMetric(c *Column, g *currencyGroups) *mainMetric {
	m := &mainMetric{col: c, groups: g, rows: make([][]int32, len(g.names))}
	sums := make([]ksum, len(g.names))
	counts := make([]int, len(g.names))
	for r, v := range c.Numbers {
		if !c.IsNull(r) {
			gi := g.of(r)
			sums[gi].add(v)
			counts[gi]++
		}
	}
	m.totals = make([]float64, len(sums))
	for i := range sums {
		m.totals[i] = sums[i].value()
		m.rows[i] = make([]int32, 0, counts[i])
	}
	for r := range c.Numbers {
		if !c.IsNull(r) {
			gi := g.of(r)
			m.rows[gi] = append(m.rows[gi], int32(r))
		}
	}
	return m
}

// decimals is how many decimals an amount of the main metric in group g keeps.
func (m *mainMetric) decimals(g int32) int {
	if m.col.Money {
		return currencyDecimals(m.groups.names[g])
	}
	return 4
}

// summarizeDimension summarizes column c; ids is scratch space of one int32 per
// row, needed only when there is a main metric.
func summarizeDimension(c *Column, main *mainMetric, ids []int32, opt SummaryOptions) DimensionSummary {
	d := DimensionSummary{Field: c.Name, TopValues: []string{}}

	// One pass: intern each value and count it; remember each row's value id when
	// there is a main metric to add up per value. Runs of equal values (tables are
	// usually sorted) skip the map.
	idx := map[string]int32{}
	var vals []string
	var counts []int
	if main == nil {
		ids = nil
	}
	prev, prevID := "", int32(-1)
	for r, v := range c.Strings {
		if prevID < 0 || v != prev {
			id, ok := idx[v]
			if !ok {
				id = int32(len(vals))
				idx[v] = id
				vals = append(vals, v)
				counts = append(counts, 0)
			}
			prev, prevID = v, id
		}
		counts[prevID]++
		if ids != nil {
			ids[r] = prevID
		}
	}
	rankValues(&d, c.Role == RoleTime, vals, counts, opt.TopValues)
	if main == nil {
		return d
	}

	// Per currency: add up the main metric per value over the currency's rows, then
	// rank the values seen. amount and seen are reset through touched between
	// currencies, so the cost is one pass over the rows whatever their number.
	d.MainMetric = main.col.Name
	d.TopByMetric = []ValueShare{}
	amount := make([]float64, len(vals))
	seen := make([]bool, len(vals))
	var touched []int32
	mv := main.col.Numbers
	showCurrency := main.col.Money && len(main.groups.names) > 1
	for _, g := range main.groups.order {
		touched = touched[:0]
		for _, r := range main.rows[g] {
			id := ids[r]
			if !seen[id] {
				seen[id] = true
				touched = append(touched, id)
			}
			amount[id] += mv[r]
		}
		currency := ""
		if showCurrency {
			currency = main.groups.names[g]
		}
		d.TopByMetric = append(d.TopByMetric, rankByAmount(vals, touched, amount, main.totals[g], main.decimals(g), currency, opt.TopByMetric)...)
		for _, id := range touched {
			seen[id], amount[id] = false, 0
		}
	}
	return d
}

// metricAcc accumulates one metric over the rows of one currency group.
type metricAcc struct {
	values, empty int
	min, max      float64
	sum, num, den ksum
}

// accumulate is metric c's values, extremes and sum over the rows of each
// currency group of g.
func accumulate(c *Column, g *currencyGroups) []metricAcc {
	accs := make([]metricAcc, len(g.names))
	for r, v := range c.Numbers {
		a := &accs[g.of(r)]
		if c.IsNull(r) {
			a.empty++
			continue
		}
		if a.values == 0 || v < a.min {
			a.min = v
		}
		if a.values == 0 || v > a.max {
			a.max = v
		}
		a.values++
		a.sum.add(v)
	}
	return accs
}

func summarizeMetric(t *Table, c *Column, g *currencyGroups) []MetricSummary {
	accs := accumulate(c, g)
	var num, den *Column
	if c.Aggregation == Ratio {
		num, den = t.Column(c.Numerator), t.Column(c.Denominator)
		if num != nil && den != nil && len(num.Numbers) == len(c.Numbers) && len(den.Numbers) == len(c.Numbers) {
			for r := range c.Numbers {
				a := &accs[g.of(r)]
				if !num.IsNull(r) {
					a.num.add(num.Numbers[r])
				}
				if !den.IsNull(r) {
					a.den.add(den.Numbers[r])
				}
			}
		} else {
			num, den = nil, nil
		}
	}

	return metricSummaries(c, accs, g.names, g.order, num != nil)
}

// rankValues fills d's unique count, most frequent values (ties by value
// ascending) and, for the time column, its first and last labels, from each
// distinct value's row count.
func rankValues(d *DimensionSummary, isTime bool, vals []string, counts []int, k int) {
	d.UniqueCount = len(vals)
	for _, i := range topK(len(vals), k, func(a, b int) bool {
		if counts[a] != counts[b] {
			return counts[a] > counts[b]
		}
		return vals[a] < vals[b]
	}) {
		d.TopValues = append(d.TopValues, vals[i])
	}
	if isTime && len(vals) > 0 {
		d.First, d.Last = slices.Min(vals), slices.Max(vals)
	}
}

// rankByAmount is the k values of one currency group with the largest amount
// of the main metric (ties by value ascending), with their share of total:
// touched are the ids of the values with an amount in the group, amount is
// indexed by value id.
func rankByAmount(vals []string, touched []int32, amount []float64, total float64, decimals int, currency string, k int) []ValueShare {
	var out []ValueShare
	for _, i := range topK(len(touched), k, func(a, b int) bool {
		x, y := touched[a], touched[b]
		if amount[x] != amount[y] {
			return amount[x] > amount[y]
		}
		return vals[x] < vals[y]
	}) {
		id := touched[i]
		vs := ValueShare{Value: vals[id], Amount: round(amount[id], decimals), Currency: currency}
		if total != 0 {
			vs.Share = round(amount[id]/total, 4)
		}
		out = append(out, vs)
	}
	return out
}

// metricSummaries turns the accumulators of metric c, one per currency group
// (names, listed in order), into its summaries; withParts says the ratio's
// parts were summed (Overall).
func metricSummaries(c *Column, accs []metricAcc, names []string, order []int32, withParts bool) []MetricSummary {
	ratioLike := c.Aggregation == Ratio || c.Numerator != ""
	out := make([]MetricSummary, 0, len(order))
	for _, gi := range order {
		a := &accs[gi]
		cur := names[gi]
		dec := 4
		if c.Money && !ratioLike {
			dec = currencyDecimals(cur)
		}
		m := MetricSummary{Field: c.Name, Aggregation: c.Aggregation.String(), Currency: cur, EmptyValues: a.empty}
		if a.values > 0 {
			m.Min, m.Max = ptr(round(a.min, dec)), ptr(round(a.max, dec))
			if !ratioLike {
				m.Avg = ptr(round(a.sum.value()/float64(a.values), dec))
			}
			if c.Aggregation == Sum {
				m.Sum = ptr(round(a.sum.value(), dec))
			}
		}
		if withParts {
			scale := c.Scale
			if scale == 0 {
				scale = 1
			}
			if d := a.den.value(); d != 0 {
				m.Overall = ptr(round(a.num.value()/d*scale, 4))
			}
		}
		out = append(out, m)
	}
	return out
}

// topK returns the indices of the k best of n candidates, best first; better must
// be a strict total order. It keeps a bounded heap whose root is the worst kept
// candidate, so it costs O(n log k) and allocates only the result.
func topK(n, k int, better func(a, b int) bool) []int {
	if k <= 0 || n == 0 {
		return nil
	}
	h := make([]int, 0, min(k, n))
	// Heap order: a parent is worse than its children.
	down := func(i int) {
		for {
			w := i
			if l := 2*i + 1; l < len(h) && better(h[w], h[l]) {
				w = l
			}
			if r := 2*i + 2; r < len(h) && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := 0; i < n; i++ {
		if len(h) < k {
			h = append(h, i)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if !better(h[p], h[j]) {
					break
				}
				h[p], h[j] = h[j], h[p]
				j = p
			}
			continue
		}
		if better(i, h[0]) {
			h[0] = i
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return h
}

// ksum is a Neumaier compensated sum, so that a million amounts still add up to
// the cent.
type ksum struct{ s, c float64 }

func (k *ksum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *ksum) value() float64 { return k.s + k.c }

// round rounds v to decimals places, keeping v when that would overflow, and never
// returns -0, so the JSON stays short and exact-looking.
func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	if r := math.Round(v*p) / p; !math.IsInf(r, 0) && !math.IsNaN(r) {
		v = r
	}
	if v == 0 {
		return 0
	}
	return v
}

func ptr(v float64) *float64 { return &v }

// amountKey is the JSON key of a ValueShare's amount: the main metric's name,
// unless that is empty or would collide with another key.
func amountKey(metric string) string {
	switch metric {
	case "", "value", "share", "currency":
		return "amount"
	}
	return metric
}

// MarshalJSON writes the dimension as in docs/contract.md §4:
// {"field","unique_count","top_values","first"?,"last"?,"top_by_<metric>"?}, the
// amounts of top_by_<metric> under the metric's name; an empty top_by_<metric> is
// left out (no main metric, or none asked for).
func (d DimensionSummary) MarshalJSON() ([]byte, error) {
	b := []byte(`{"field":`)
	b = appendJSON(b, d.Field)
	b = append(b, `,"unique_count":`...)
	b = appendJSON(b, d.UniqueCount)
	b = append(b, `,"top_values":`...)
	if d.TopValues == nil {
		b = append(b, "[]"...)
	} else {
		b = appendJSON(b, d.TopValues)
	}
	if d.First != "" || d.Last != "" {
		b = append(b, `,"first":`...)
		b = appendJSON(b, d.First)
		b = append(b, `,"last":`...)
		b = appendJSON(b, d.Last)
	}
	if d.MainMetric != "" && len(d.TopByMetric) > 0 {
		b = append(b, `,`...)
		b = appendJSON(b, "top_by_"+d.MainMetric)
		b = append(b, `:[`...)
		for i, v := range d.TopByMetric {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b, d.MainMetric)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// MarshalJSON writes {"value","amount","share","currency"?}. Inside a
// DimensionSummary the amount is keyed by the main metric's name instead.
func (v ValueShare) MarshalJSON() ([]byte, error) { return v.appendJSON(nil, ""), nil }

func (v ValueShare) appendJSON(b []byte, metric string) []byte {
	b = append(b, `{"value":`...)
	b = appendJSON(b, v.Value)
	b = append(b, ',')
	b = appendJSON(b, amountKey(metric))
	b = append(b, ':')
	b = appendJSON(b, v.Amount)
	b = append(b, `,"share":`...)
	b = appendJSON(b, v.Share)
	if v.Currency != "" {
		b = append(b, `,"currency":`...)
		b = appendJSON(b, v.Currency)
	}
	return append(b, '}')
}

// appendJSON appends the JSON encoding of a string, int, float or string slice,
// none of which can fail to encode (finite floats only: round keeps them finite).
func appendJSON(b []byte, v any) []byte {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	j, err := MarshalText(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

package fit

import (
	"fmt"
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// canRollup reports whether rows at grain from can be merged exactly into grain to:
// daily → weekly, monthly, quarterly, total; weekly → total; monthly → quarterly,
// total; quarterly → total. Weekly → monthly or quarterly is not exact (a week can
// straddle two months, and two quarters). A grain never rolls up into itself, and
// a table without a time column (Total) has nothing to coarsen.
func canRollup(from, to Grain) bool {
	switch from {
	case Daily:
		return to == Weekly || to == Monthly || to == Quarterly || to == Total
	case Monthly:
		return to == Quarterly || to == Total
	case Weekly, Quarterly:
		return to == Total
	}
	return false
}

// Rollup merges t's rows into grain to: rows with equal dimension values and equal
// period merge; Sum columns add up; Ratio columns are recomputed from their summed
// Numerator and Denominator columns (× Scale; Null when the summed denominator is 0);
// NonAdditive columns cannot be merged and are removed from the result — their names
// are returned in dropped. The time column is relabelled (or removed for Total).
// Rows keep a deterministic order: period ascending, then first appearance of the
// dimension combination. Null values in Sum columns are skipped (a group whose values
// are all Null stays Null). Money never mixes currencies: a CurrencyColumn is a
// dimension, so rows of different currencies never merge. The input is not modified.
//
// Details:
//   - A Ratio whose Numerator or Denominator is not a Sum column cannot be
//     recomputed and is removed like a NonAdditive column. A Ratio cell is Null
//     when either summed part is Null, the summed denominator is 0, or the
//     quotient overflows. A Scale of 0 counts as 1.
//   - dropped lists the removed visible columns in table order. Removed Hidden
//     columns are not listed: nobody asked for them and they are never shown.
//   - The time column is renamed to to.TimeColumn() and keeps its position; labels
//     must be those of t's grain (daily YYYY-MM-DD, monthly YYYY-MM). Labels are
//     not parsed for a roll-up to Total.
//   - Every column keeps its metadata (Hidden, Money, Currency…). Notices are
//     copied. RowsBeforeLimit becomes the result's length when no limit cut t;
//     otherwise it keeps t's value, which counts rows at t's grain.
//   - Sums of a group are added in input row order, so the result is reproducible.
func Rollup(t *Table, to Grain) (rolled *Table, dropped []string, err error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	g, err := rollupGroup(t, to, true)
	if err != nil {
		return nil, nil, err
	}

	// Which columns survive.
	kind := make(map[string]*Column, len(t.Columns))
	for _, c := range t.Columns {
		kind[c.Name] = c
	}
	isSum := func(name string) bool {
		c := kind[name]
		return c != nil && c.Role == RoleMetric && c.Aggregation == Sum
	}
	keep := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		if to != Total && c.Role != RoleTime && c.Name == to.TimeColumn() {
			return nil, nil, fmt.Errorf("fit: column %q clashes with the %s time column", c.Name, to)
		}
		if c.Money && c.CurrencyColumn != "" {
			if cc := kind[c.CurrencyColumn]; cc == nil || cc.Role != RoleDimension {
				return nil, nil, fmt.Errorf("fit: money column %q: currency column %q is not a dimension", c.Name, c.CurrencyColumn)
			}
		}
		switch c.Role {
		case RoleDimension:
			keep[i] = true
		case RoleTime:
			keep[i] = to != Total
		case RoleMetric:
			switch c.Aggregation {
			case Sum:
				keep[i] = true
			case Ratio:
				keep[i] = isSum(c.Numerator) && isSum(c.Denominator)
			case NonAdditive:
			default:
				return nil, nil, fmt.Errorf("fit: column %q has unknown aggregation %v", c.Name, c.Aggregation)
			}
			if !keep[i] && !c.Hidden {
				dropped = append(dropped, c.Name)
			}
		default:
			return nil, nil, fmt.Errorf("fit: column %q has unknown role %v", c.Name, c.Role)
		}
	}

	rolled = &Table{Grain: to, RowsBeforeLimit: t.RowsBeforeLimit, Notices: slices.Clone(t.Notices)}
	if t.RowsBeforeLimit <= t.Len() {
		rolled.RowsBeforeLimit = g.n
	}
	out := make(map[string]*Column, len(t.Columns))
	var ratios []*Column
	for i, c := range t.Columns {
		if !keep[i] {
			continue
		}
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = nil, nil, nil
		switch {
		case c.Role == RoleTime:
			nc.Name = to.TimeColumn()
			nc.Strings = g.labels
		case c.Role == RoleDimension:
			nc.Strings = make([]string, g.n)
			for r, row := range g.firstRow {
				nc.Strings[r] = c.Strings[row]
			}
		case c.Aggregation == Sum:
			nc.Numbers, nc.Null = rollupSum(c, g.rowGroup, g.n)
		case c.Aggregation == Ratio:
			ratios = append(ratios, &nc) // after every Sum is done
		}
		rolled.Columns = append(rolled.Columns, &nc)
		out[nc.Name] = &nc
	}
	for _, c := range ratios {
		c.Numbers, c.Null = rollupRatio(out[c.Numerator], out[c.Denominator], c.Scale, g.n)
	}
	return rolled, dropped, nil
}

// rowCountAt returns how many rows Rollup(t, g) would produce, without building it
// (fast path used to skip grains that provably cannot fit). It checks the shape of
// the dimension and time columns only, not every metric value as Rollup does.
func rowCountAt(t *Table, g Grain) (int, error) {
	gr, err := rollupGroup(t, g, false)
	if err != nil {
		return 0, err
	}
	return gr.n, nil
}

// rollupGroups is how the rows of a table merge at a grain.
type rollupGroups struct {
	// n is the number of groups: the rows of the result.
	n int
	// rowGroup maps each input row to its group, which is its result row.
	rowGroup []int32
	// firstRow is, for each group, the first input row in it.
	firstRow []int32
	// labels is, for each group, its period label (nil at Total).
	labels []string
}

// rollupGroup groups t's rows by (period at grain to, dimension values). Groups are
// numbered in result order: period ascending, then first appearance of the
// dimension combination in t. With rows false only n is computed.
func rollupGroup(t *Table, to Grain, rows bool) (*rollupGroups, error) {
	from := t.Grain
	if from == "" {
		from = Total
	}
	if !canRollup(from, to) {
		return nil, fmt.Errorf("fit: cannot roll up %s rows to %s exactly", from, to)
	}
	n := t.Len()
	var timeCol *Column
	var dims []*Column
	for _, c := range t.Columns {
		switch c.Role {
		case RoleTime:
			if timeCol != nil {
				return nil, fmt.Errorf("fit: more than one time column (%q, %q)", timeCol.Name, c.Name)
			}
			timeCol = c
		case RoleDimension:
			dims = append(dims, c)
		}
		if c.Role != RoleMetric && len(c.Strings) != n {
			return nil, fmt.Errorf("fit: column %q has %d values, want %d", c.Name, len(c.Strings), n)
		}
	}
	if timeCol == nil {
		return nil, fmt.Errorf("fit: a %s table without a time column", from)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("fit: %d rows are too many to roll up", n)
	}

	// Dimension combinations, numbered by first appearance (nil: all rows 0).
	combo, nCombo := rollupCombos(dims, n)

	// Periods, numbered chronologically (nil: Total, all rows 0).
	var period []int32
	var periodLabels []string
	if to != Total {
		var err error
		if period, periodLabels, err = rollupPeriods(timeCol, from, to); err != nil {
			return nil, err
		}
	}

	gr := &rollupGroups{}
	switch {
	case period == nil: // Total: one group per combination, already in order.
		gr.n, gr.rowGroup = nCombo, combo
		if gr.rowGroup == nil && n > 0 {
			gr.rowGroup = make([]int32, n)
		}
	case combo == nil: // No dimensions: one group per period, already in order.
		gr.n, gr.rowGroup = len(periodLabels), period
	default:
		// Provisional groups in first-appearance order, then sorted by (period,
		// combination) with two stable counting sorts.
		prov := make([]int32, n)
		np := rollupPair(period, combo, len(periodLabels), nCombo, prov)
		gr.n = np
		if !rows {
			return gr, nil
		}
		gp := make([]int32, np) // period of each provisional group
		gc := make([]int32, np) // combination of each provisional group
		seen := make([]bool, np)
		for i, g := range prov {
			if !seen[g] {
				seen[g] = true
				gp[g], gc[g] = period[i], combo[i]
			}
		}
		byCombo := make([]int32, np)
		pos := make([]int32, max(nCombo, len(periodLabels))+1)
		for _, c := range gc {
			pos[c+1]++
		}
		for i := 1; i <= nCombo; i++ {
			pos[i] += pos[i-1]
		}
		for g, c := range gc {
			byCombo[pos[c]] = int32(g)
			pos[c]++
		}
		clear(pos)
		for _, p := range gp {
			pos[p+1]++
		}
		for i := 1; i <= len(periodLabels); i++ {
			pos[i] += pos[i-1]
		}
		rank := gc // reuse: gc is not needed any more
		for _, g := range byCombo {
			p := gp[g]
			rank[g] = pos[p]
			pos[p]++
		}
		for i, g := range prov {
			prov[i] = rank[g]
		}
		gr.rowGroup = prov
	}
	if !rows {
		return gr, nil
	}
	gr.firstRow = make([]int32, gr.n)
	for i := range gr.firstRow {
		gr.firstRow[i] = -1
	}
	for i, g := range gr.rowGroup {
		if gr.firstRow[g] < 0 {
			gr.firstRow[g] = int32(i)
		}
	}
	if period != nil {
		gr.labels = make([]string, gr.n)
		for g, row := range gr.firstRow {
			gr.labels[g] = periodLabels[period[row]]
		}
	}
	return gr, nil
}

// rollupCombos numbers the combinations of the dimension values of each row by
// first appearance. It returns nil (every row is combination 0) when there are no
// dimensions.
//
// Large tables are cut into chunks numbered concurrently, each with its own table
// of combinations; the chunks' combinations are then merged in chunk order, which
// keeps the numbering by first appearance in the whole table.
func rollupCombos(dims []*Column, n int) ([]int32, int) {
	if len(dims) == 0 {
		if n == 0 {
			return nil, 0
		}
		return nil, 1
	}
	cols := make([][]string, len(dims))
	for j, d := range dims {
		cols[j] = d.Strings[:n]
	}
	seed := maphash.MakeSeed()
	combo := make([]int32, n)
	workers := min(rollupProcs(0), n/rollupChunkRows)
	if workers <= 1 {
		tab := newRollupCombos(cols, seed)
		tab.number(0, n, combo)
		return combo, len(tab.hashes)
	}
	bound := func(w int) int { return n * w / workers }
	tabs := make([]*rollupComboTable, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			tabs[w] = newRollupCombos(cols, seed)
			tabs[w].number(bound(w), bound(w+1), combo)
		})
	}
	wg.Wait()
	all := tabs[0] // chunk 0's numbers are already the final ones
	k := len(cols)
	for w := 1; w < workers; w++ {
		tab := tabs[w]
		final := make([]int32, len(tab.hashes))
		for c, h := range tab.hashes {
			final[c] = all.find(h, tab.reps[c*k:c*k+k])
		}
		wg.Go(func() {
			part := combo[bound(w):bound(w+1)]
			for i, c := range part {
				part[i] = final[c]
			}
		})
	}
	wg.Wait()
	return combo, len(all.hashes)
}

// rollupChunkRows is the least number of rows worth a goroutine of its own, and
// rollupProcs how many goroutines may run. Variables so that tests can exercise
// the concurrent path on small tables.
var (
	rollupChunkRows = 1 << 15
	rollupProcs     = runtime.GOMAXPROCS
)

// rollupHash hashes a dimension value; a variable so that tests can make every
// value collide.
var rollupHash = maphash.String

// rollupComboTable numbers combinations of values by first appearance: an
// open-addressing hash table that compares the values themselves, so a hash
// collision costs time, never correctness.
type rollupComboTable struct {
	cols   [][]string
	seed   maphash.Seed
	reps   []string // combination c's values are reps[c*k : c*k+k]
	hashes []uint64 // combination → hash of its values
	slots  []int32  // combination+1; 0 = empty
	mask   uint64
}

func newRollupCombos(cols [][]string, seed maphash.Seed) *rollupComboTable {
	return &rollupComboTable{cols: cols, seed: seed, slots: make([]int32, 1<<8), mask: 1<<8 - 1}
}

// number sets combo[i] for the rows lo ≤ i < hi.
func (t *rollupComboTable) number(lo, hi int, combo []int32) {
	k := len(t.cols)
	for i := lo; i < hi; i++ {
		h := uint64(0)
		for j, c := range t.cols {
			h = rollupMix(h, rollupHash(t.seed, c[i]), j)
		}
		x := h & t.mask
		for {
			id := t.slots[x]
			if id == 0 {
				for _, c := range t.cols {
					t.reps = append(t.reps, c[i])
				}
				combo[i] = t.insert(x, h)
				break
			}
			if t.hashes[id-1] == h && rollupSameRow(t.cols, i, t.reps[int(id-1)*k:int(id)*k]) {
				combo[i] = id - 1
				break
			}
			x = (x + 1) & t.mask
		}
	}
}

// find returns the number of the combination vals, whose hash is h, adding it
// when new.
func (t *rollupComboTable) find(h uint64, vals []string) int32 {
	k := len(t.cols)
	x := h & t.mask
	for {
		id := t.slots[x]
		if id == 0 {
			t.reps = append(t.reps, vals...)
			return t.insert(x, h)
		}
		if t.hashes[id-1] == h && slices.Equal(vals, t.reps[int(id-1)*k:int(id)*k]) {
			return id - 1
		}
		x = (x + 1) & t.mask
	}
}

// insert numbers a new combination whose values were just appended to reps, in
// the empty slot x, and keeps the table at most half full.
func (t *rollupComboTable) insert(x, h uint64) int32 {
	id := int32(len(t.hashes))
	t.hashes = append(t.hashes, h)
	t.slots[x] = id + 1
	if len(t.hashes)*2 > len(t.slots) {
		t.slots = make([]int32, len(t.slots)*2)
		t.mask = uint64(len(t.slots) - 1)
		for c, h := range t.hashes {
			x := h & t.mask
			for t.slots[x] != 0 {
				x = (x + 1) & t.mask
			}
			t.slots[x] = int32(c) + 1
		}
	}
	return id
}

// rollupMix folds the hash of column j's value into a row's hash.
func rollupMix(h, v uint64, j int) uint64 {
	return (h^v)*0x9e3779b97f4a7c15 + uint64(j)
}

// rollupSameRow reports whether row i of cols holds the values rep.
func rollupSameRow(cols [][]string, i int, rep []string) bool {
	for j, c := range cols {
		if c[i] != rep[j] {
			return false
		}
	}
	return true
}

// A pair space of up to max(rollupDenseMin, rollupDensePerRow × rows) entries
// is looked up in a dense table (4 bytes an entry), a larger one in a hash map.
// Variables so that tests can exercise both.
var rollupDenseMin, rollupDensePerRow = 1 << 16, 2

// rollupPair numbers the distinct pairs (a[i], b[i]) by first appearance into out
// (which may be a or b) and returns how many there are; a's values are below na,
// b's below nb. Pair spaces small enough are looked up in a dense table, others
// in a hash map of the pair packed in 64 bits.
func rollupPair(a, b []int32, na, nb int, out []int32) int {
	a, b = a[:len(out)], b[:len(out)]
	var next int32
	pa, pb, pid := int32(-1), int32(-1), int32(0)
	if size := uint64(na) * uint64(nb); size <= uint64(max(rollupDenseMin, rollupDensePerRow*len(out))) {
		tab := make([]int32, size) // id+1; 0 = not seen
		for i := range out {
			x, y := a[i], b[i]
			if x == pa && y == pb {
				out[i] = pid
				continue
			}
			k := uint64(x)*uint64(nb) + uint64(y)
			id := tab[k]
			if id == 0 {
				next++
				id = next
				tab[k] = id
			}
			pa, pb, pid = x, y, id-1
			out[i] = pid
		}
		return int(next)
	}
	ids := make(map[uint64]int32)
	for i := range out {
		x, y := a[i], b[i]
		if x == pa && y == pb {
			out[i] = pid
			continue
		}
		k := uint64(x)<<32 | uint64(y)
		id, ok := ids[k]
		if !ok {
			id = next
			next++
			ids[k] = id
		}
		pa, pb, pid = x, y, id
		out[i] = pid
	}
	return int(next)
}

// rollupPeriods maps each row's label at grain from to its period at grain to. Periods are
// numbered chronologically and their labels returned in that order. Each distinct
// label is parsed once.
func rollupPeriods(timeCol *Column, from, to Grain) ([]int32, []string, error) {
	labels := timeCol.Strings
	period := make([]int32, len(labels))
	byLabel := make(map[string]int32) // input label → period
	byPeriod := make(map[string]int32)
	var periods []string
	prev, prevID := "", int32(-1)
	for i, s := range labels {
		if prevID >= 0 && s == prev {
			period[i] = prevID
			continue
		}
		id, ok := byLabel[s]
		if !ok {
			d, err := ParsePeriod(from, s)
			if err != nil {
				return nil, nil, fmt.Errorf("fit: row %d: %s %q is not a %s", i, timeCol.Name, s, labelLayout(from))
			}
			p := periodOf(to, d)
			if id, ok = byPeriod[p]; !ok {
				id = int32(len(periods))
				periods = append(periods, p)
				byPeriod[p] = id
			}
			byLabel[s] = id
		}
		period[i] = id
		prev, prevID = s, id
	}
	order := make([]int32, len(periods))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(periods[x], periods[y]) })
	rank := make([]int32, len(periods))
	sorted := make([]string, len(periods))
	for r, id := range order {
		rank[id] = int32(r)
		sorted[r] = periods[id]
	}
	for i, id := range period {
		period[i] = rank[id]
	}
	return period, sorted, nil
}

// rollupSum adds c's non-Null values per group. A group without any value is Null;
// the Null slice is nil when no group is.
func rollupSum(c *Column, rowGroup []int32, n int) ([]float64, []bool) {
	sums := make([]float64, n)
	vals := c.Numbers
	rowGroup = rowGroup[:len(vals)]
	if c.Null == nil {
		for i, v := range vals {
			sums[rowGroup[i]] += v
		}
		return sums, nil
	}
	null := c.Null[:len(vals)]
	seen := make([]bool, n)
	for i, v := range vals {
		if !null[i] {
			g := rowGroup[i]
			sums[g] += v
			seen[g] = true
		}
	}
	none := false
	for g, ok := range seen {
		seen[g] = !ok // seen becomes the Null mask
		none = none || !ok
	}
	if !none {
		return sums, nil
	}
	return sums, seen
}

// rollupRatio is num / den × scale per row, Null when a part is Null, the
// denominator is 0 or the quotient is not finite.
func rollupRatio(num, den *Column, scale float64, n int) ([]float64, []bool) {
	if scale == 0 {
		scale = 1
	}
	vals := make([]float64, n)
	var null []bool
	for r := range n {
		d := den.Numbers[r]
		v := num.Numbers[r] / d * scale
		if num.IsNull(r) || den.IsNull(r) || d == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			if null == nil {
				null = make([]bool, n)
			}
			null[r] = true
			continue
		}
		vals[r] = v
	}
	return vals, null
}

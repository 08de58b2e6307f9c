package fit

import (
	"fmt"
	"sort"
)

// Select returns a new table with the rows at the given indexes, in that order.
// Column schemas are copied; t is not modified.
func (t *Table) Select(rows []int) *Table {
	out := &Table{Grain: t.Grain, RowsBeforeLimit: t.RowsBeforeLimit, Notices: t.Notices}
	for _, c := range t.Columns {
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = nil, nil, nil
		if c.Role == RoleMetric {
			nc.Numbers = make([]float64, len(rows))
			for i, r := range rows {
				nc.Numbers[i] = c.Numbers[r]
			}
			if c.Null != nil {
				nc.Null = make([]bool, len(rows))
				for i, r := range rows {
					nc.Null[i] = c.Null[r]
				}
			}
		} else {
			nc.Strings = make([]string, len(rows))
			for i, r := range rows {
				nc.Strings[i] = c.Strings[r]
			}
		}
		out.Columns = append(out.Columns, &nc)
	}
	return out
}

// JudgedDimensions are the columns step 1 judges when it decides whether a
// row's dimensions are all empty: the visible dimensions, except unit columns
// (Unit, or the CurrencyColumn of a money column) — a currency or an
// attribution window only says how the numbers are measured, so the same rows
// are removed whether or not the accounts span currencies or windows — unless
// they are the only dimensions, which are then not judged at all. Sources
// that rank rows before fitting (a top-N in SQL) use the same rule, so a row
// step 1 removes never takes a place.
func JudgedDimensions(cols []*Column) []*Column {
	units := map[string]bool{}
	for _, c := range cols {
		if c.Role == RoleMetric && c.CurrencyColumn != "" {
			units[c.CurrencyColumn] = true
		}
	}
	var dims []*Column
	for _, c := range cols {
		if c.Role == RoleDimension && !c.Hidden && !c.Unit && !units[c.Name] {
			dims = append(dims, c)
		}
	}
	return dims
}

// dropEmptyDimensionRows is step 1's filter: when the table has dimension
// columns, rows whose judged dimensions (JudgedDimensions) are all empty belong
// to no row of the breakdown — the source recorded activity without attributing
// it to any value of those dimensions — and are removed. It returns the kept
// table, the removed rows' indexes and the names of the dimensions judged.
func dropEmptyDimensionRows(t *Table) (kept *Table, removed []int, judged []string) {
	dims := JudgedDimensions(t.Columns)
	if len(dims) == 0 {
		return t, nil, nil
	}
	for _, c := range dims {
		judged = append(judged, c.Name)
	}
	keep := make([]int, 0, t.Len())
	for r := range t.Len() {
		empty := true
		for _, c := range dims {
			if c.Strings[r] != "" {
				empty = false
				break
			}
		}
		if empty {
			removed = append(removed, r)
		} else {
			keep = append(keep, r)
		}
	}
	if len(removed) == 0 {
		return t, nil, judged
	}
	return t.Select(keep), removed, judged
}

// AllZeroPartitions returns, sorted, the values of the partition column whose
// rows have every visible metric zero or empty, and at least one a real zero —
// an account whose token likely lacks the right scopes. (Metrics that are only
// empty, such as reach a platform does not report, say nothing of the token.)
// When the table has no partition column, the whole table is one partition
// and whole reports whether it is all zero. Step 1 judges with it; a caller
// judging partitions for a table without their column does too
// (Partitions.Judged).
func AllZeroPartitions(t *Table, partition string) (keys []string, whole bool) {
	var metrics []*Column
	for _, c := range t.Columns {
		if c.Role == RoleMetric && !c.Hidden {
			metrics = append(metrics, c)
		}
	}
	if len(metrics) == 0 || t.Len() == 0 {
		return nil, false
	}
	nonZero := func(r int) bool {
		for _, c := range metrics {
			if !c.IsNull(r) && c.Numbers[r] != 0 {
				return true
			}
		}
		return false
	}
	aZero := func(r int) bool {
		for _, c := range metrics {
			if !c.IsNull(r) {
				return true // and zero, when !nonZero(r)
			}
		}
		return false
	}
	pc := t.Column(partition)
	if partition == "" || pc == nil || pc.Role == RoleMetric {
		zeros := false
		for r := range t.Len() {
			if nonZero(r) {
				return nil, false
			}
			zeros = zeros || aZero(r)
		}
		return nil, zeros
	}
	zero := map[string]bool{}
	sawZero := map[string]bool{}
	for r := range t.Len() {
		k := pc.Strings[r]
		if _, seen := zero[k]; !seen {
			zero[k] = true
		}
		if zero[k] && nonZero(r) {
			zero[k] = false
		}
		if aZero(r) {
			sawZero[k] = true
		}
	}
	for k, z := range zero {
		if z && sawZero[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, false
}

func pluralRows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

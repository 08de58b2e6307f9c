package fit

import (
	"cmp"
	"slices"
)

// SortKey orders rows by one column, ascending unless Desc.
type SortKey struct {
	Column string
	Desc   bool
}

// SortRows returns t's rows ordered by keys, then by the time column ascending,
// then by the visible dimensions ascending in table order — the order a SQL source
// produces for the same keys (ORDER BY keys…, time, dimensions… NULLS LAST), so a
// locally rolled-up answer keeps the order the caller asked for at every grain.
// Text compares byte by byte; empty values (empty text, Null metrics) sort last
// in either direction. Keys naming columns t lacks (the time column of a Total
// table) are skipped. Equal rows keep their relative order. t is not modified.
func SortRows(t *Table, keys []SortKey) *Table {
	type key struct {
		c    *Column
		desc bool
	}
	var ks []key
	seen := map[*Column]bool{}
	use := func(c *Column, desc bool) {
		if c != nil && !seen[c] {
			seen[c] = true
			ks = append(ks, key{c, desc})
		}
	}
	var timeCol *Column
	for _, c := range t.Columns {
		if c.Role == RoleTime {
			timeCol = c
		}
	}
	for _, k := range keys {
		c := t.Column(k.Column)
		if c == nil && timeCol != nil && IsTimeColumn(k.Column) {
			c = timeCol // a sort on "date" holds for the period it rolled up into
		}
		use(c, k.Desc)
	}
	use(timeCol, false)
	for _, c := range t.Columns {
		if c.Role == RoleDimension && !c.Hidden {
			use(c, false)
		}
	}
	order := make([]int, t.Len())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		for _, k := range ks {
			var d int
			var emptyA, emptyB bool
			if k.c.Role == RoleMetric {
				emptyA, emptyB = k.c.IsNull(a), k.c.IsNull(b)
				if !emptyA && !emptyB {
					d = cmp.Compare(k.c.Numbers[a], k.c.Numbers[b])
				}
			} else {
				emptyA, emptyB = k.c.Strings[a] == "", k.c.Strings[b] == ""
				if !emptyA && !emptyB {
					d = cmp.Compare(k.c.Strings[a], k.c.Strings[b])
				}
			}
			switch {
			case emptyA && emptyB:
				continue
			case emptyA:
				return 1
			case emptyB:
				return -1
			}
			if k.desc {
				d = -d
			}
			if d != 0 {
				return d
			}
		}
		return 0
	})
	if slices.IsSorted(order) {
		return t
	}
	return t.Select(order)
}

// IsTimeColumn reports whether name is the time column of some grain (date,
// week, month, quarter): a sort on it holds on whichever time column an answer has.
func IsTimeColumn(name string) bool {
	for _, g := range Grains {
		if g != Total && g.TimeColumn() == name {
			return true
		}
	}
	return false
}

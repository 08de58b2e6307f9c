package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// limitSQL is the final step of a query with a top-N limit. Two rules keep the
// limit literal:
//
//   - Rows whose every asked-for dimension is empty (activity the source did not
//     attribute: fit's step 1 removes and reports them) take no place in the top
//     N and are not counted before the limit; they are all returned, so fit can
//     report what they carried. `limit 5` thus gives min(5, qualifying rows).
//   - With q.LimitPerCurrency the top N are taken within each currency.
//
// Engines with window functions rank in SQL (ROW_NUMBER over the same keys as
// ORDER BY); the others return every row with the empty flag and ReadTable
// applies the same rules. The empty rows come last.
func limitSQL(b *builder, q *query.Query, p *Plan, out []string, calcSQL, where string, keys []string) string {
	empty := emptyFlag(q, p)
	part := ""
	p.ReaderPartition = -1
	if q.LimitPerCurrency {
		if i := slices.Index(q.Dimensions, "currency"); i >= 0 {
			part = fmt.Sprintf(", d%d", i)
			p.ReaderPartition = slices.IndexFunc(p.Columns, func(c *fit.Column) bool { return c.Name == "currency" })
		}
	}
	order := strings.Join(keys, ", ")
	p.ReaderEmptyFlag = true
	if !b.d.WindowCount() {
		p.ReaderCounts, p.ReaderLimit = true, q.Limit
		return fmt.Sprintf("SELECT %s, %s AS e_\nFROM (\n  %s\n) AS calc%s\nORDER BY e_, %s",
			strings.Join(out, ", "), empty, calcSQL, where, order)
	}
	ranked := fmt.Sprintf("SELECT calc.*, %[1]s AS e_, COUNT(CASE WHEN %[1]s = 0 THEN 1 END) OVER () AS n_before_limit,\n"+
		"    ROW_NUMBER() OVER (PARTITION BY %[1]s%[2]s ORDER BY %[3]s) AS rn_\n  FROM (\n  %[4]s\n  ) AS calc%[5]s",
		empty, part, order, calcSQL, strings.ReplaceAll(where, "\n", "\n  "))
	return fmt.Sprintf("SELECT %s, e_, n_before_limit\nFROM (\n  %s\n) AS ranked\nWHERE e_ = 1 OR rn_ <= %s\nORDER BY e_, %s",
		strings.Join(out, ", "), ranked, b.param(q.Limit), order)
}

// emptyFlag is the SQL expression that is 1 when every dimension fit's step 1
// judges is empty (fit.JudgedDimensions: the rows it removes), else 0.
func emptyFlag(q *query.Query, p *Plan) string {
	var conds []string
	for _, c := range fit.JudgedDimensions(p.Columns) {
		conds = append(conds, fmt.Sprintf("coalesce(d%d, '') = ''", slices.Index(q.Dimensions, c.Name)))
	}
	if len(conds) == 0 {
		return "0"
	}
	return "CASE WHEN " + strings.Join(conds, " AND ") + " THEN 1 ELSE 0 END"
}

package sqlgen

import (
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source"
)

// CoverageSQL is the statement listing, for each of accountIDs that has fact
// rows, its first and last fact date as YYYY-MM-DD text and its number of
// delivery rows: what source.CoverageSource answers. It reads only the facts
// table's account_id, date and breakdown columns, the same in every layout.
// The other breakdown sets split the same delivery again: counting them would
// make the size estimate of every query (answer's factsIn) grow with them.
func CoverageSQL(d Dialect, accountIDs []string) (string, []any) {
	b := &builder{d: d}
	sql := fmt.Sprintf("SELECT f.account_id, %s, %s, COUNT(CASE WHEN f.breakdown = '"+catalog.Delivery+"' THEN 1 END)\nFROM facts f\nWHERE f.account_id IN (%s)\nGROUP BY f.account_id",
		d.FormatPeriod(fit.Daily, "MIN(f.date)"), d.FormatPeriod(fit.Daily, "MAX(f.date)"), b.params(anySlice(accountIDs)))
	return sql, b.args
}

// ReadCoverage reads the rows of CoverageSQL.
func ReadCoverage(rows Rows) (map[string]source.Coverage, error) {
	out := map[string]source.Coverage{}
	for rows.Next() {
		var id, first, last string
		var facts int64
		if err := rows.Scan(&id, &first, &last, &facts); err != nil {
			return nil, fmt.Errorf("read coverage: %w", err)
		}
		f, err := time.Parse(time.DateOnly, first)
		if err != nil {
			return nil, fmt.Errorf("read coverage: %w", err)
		}
		l, err := time.Parse(time.DateOnly, last)
		if err != nil {
			return nil, fmt.Errorf("read coverage: %w", err)
		}
		out[id] = source.Coverage{First: f, Last: l, Facts: int(facts)}
	}
	return out, rows.Err()
}

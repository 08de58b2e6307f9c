package sqlgen

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// Rows is what ReadTable needs of a result set; *sql.Rows and pgx.Rows both
// have it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadTable reads the rows of a compiled plan into a table. Each call takes
// fresh columns from the plan, so a plan is read once. When the plan says so
// (ReaderCounts), it counts the rows before the limit itself, reading past
// the limit without keeping those rows.
func ReadTable(ctx context.Context, rows Rows, p *Plan, grain fit.Grain) (*fit.Table, error) {
	// The call's share of the server's rows in flight (rowbudget), taken a
	// chunk at a time: a result over it stops here, before its other rows
	// are read.
	lease := rowbudget.From(ctx)
	const chunk = 1024
	reserved, kept := int64(0), int64(0)
	t := &fit.Table{Columns: p.Columns, Grain: grain, Notices: p.Notices}
	n := len(p.Columns)
	if !p.ReaderCounts {
		n++
	}
	var emptyFlag int64
	if p.ReaderEmptyFlag {
		n++
	}
	dest := make([]any, n)
	strs := make([]sql.NullString, len(p.Columns))
	nums := make([]sql.NullFloat64, len(p.Columns))
	for i, c := range p.Columns {
		if c.Role == fit.RoleMetric {
			dest[i] = &nums[i]
		} else {
			dest[i] = &strs[i]
		}
	}
	var before, counted, empties int64
	if p.ReaderEmptyFlag {
		dest[len(p.Columns)] = &emptyFlag
	}
	if !p.ReaderCounts {
		dest[n-1] = &before
	}
	// Rows of each partition kept so far, for a limit within each partition.
	perPartition := map[string]int{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read row: %w", err)
		}
		if emptyFlag != 0 {
			empties++
		} else {
			counted++
			if p.ReaderLimit > 0 {
				key := ""
				if p.ReaderPartition >= 0 && p.ReaderEmptyFlag {
					key = strs[p.ReaderPartition].String
				}
				perPartition[key]++
				if perPartition[key] > p.ReaderLimit {
					continue
				}
			}
		}
		if kept++; kept > reserved {
			n, err := lease.Take(chunk)
			if err != nil {
				return nil, err
			}
			reserved += n
		}
		for i, c := range p.Columns {
			if c.Role != fit.RoleMetric {
				c.Strings = append(c.Strings, strs[i].String)
				continue
			}
			c.Numbers = append(c.Numbers, nums[i].Float64)
			if !nums[i].Valid {
				if c.Null == nil {
					c.Null = make([]bool, len(c.Numbers)-1, cap(c.Numbers))
				}
				c.Null = append(c.Null, true)
			} else if c.Null != nil {
				c.Null = append(c.Null, false)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Rows before the limit: the qualifying rows the limit ranked, plus the
	// rows with every dimension empty, which it never cuts (see limitSQL).
	t.RowsBeforeLimit = t.Len()
	switch {
	case p.ReaderCounts:
		t.RowsBeforeLimit = int(counted + empties)
	case t.Len() > 0:
		t.RowsBeforeLimit = int(before + empties)
	}
	return t, nil
}

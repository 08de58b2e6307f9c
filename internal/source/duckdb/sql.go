package duckdb

import (
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// The query → SQL translation lives in internal/source/sqlgen, shared with the
// other SQL sources; this warehouse speaks its DuckDB dialect.

// plan is a query compiled to DuckDB SQL.
type plan struct {
	sql     string
	args    []any
	columns []*fit.Column
	notices []fit.Notice
	p       *sqlgen.Plan
}

func compile(q *query.Query) (*plan, error) {
	p, err := sqlgen.Compile(q, sqlgen.DuckDB{})
	if err != nil {
		return nil, err
	}
	return &plan{sql: p.SQL, args: p.Args, columns: p.Columns, notices: p.Notices, p: p}, nil
}

// ReachNeed is which stored reach values the warehouse's SQL reads for a query.
type ReachNeed = sqlgen.ReachNeed

// ReachNeeded is the reach q reads, given the metrics it uses (its own and
// those of its filters); nil when it reads none.
func ReachNeeded(q *query.Query, used []string) *ReachNeed { return sqlgen.ReachNeeded(q, used) }

func periodStart(g fit.Grain, t time.Time) time.Time { return sqlgen.PeriodStart(g, t) }

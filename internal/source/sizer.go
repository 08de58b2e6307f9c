package source

import (
	"context"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Sizer is a source that can measure a query's result and summarize it where
// its rows are, so a result too large to hold is never brought into memory:
// the answer engine counts first, then fetches only a grain that can fit, and
// summarizes the requested grain from aggregates (docs/fit.md, "Large
// results"). The SQL warehouses implement it (sqlgen.Sized); the live
// sources, which hold no rows before fetching, do not.
type Sizer interface {
	// FactRows counts the stored facts q reads: a bound on its rows at any
	// grain, from one cheap scan.
	FactRows(ctx context.Context, q *query.Query) (int, error)
	// RowCounts is how many rows q returns at each of grains.
	RowCounts(ctx context.Context, q *query.Query, grains []fit.Grain) ([]int, error)
	// Removed is the rows of q whose every judged dimension is empty (fit's
	// step 1 removes them): few, and read in full.
	Removed(ctx context.Context, q *query.Query) (*fit.Table, error)
	// Aggregates are what fit.SummarizeAggregates needs of q's other rows.
	Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error)
}

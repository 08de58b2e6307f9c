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
	// RowCounts is how many rows q returns at each of grains.
	RowCounts(ctx context.Context, q *query.Query, grains []fit.Grain) ([]int, error)
	// Removed is the rows of q whose every judged dimension is empty (fit's
	// step 1 removes them): few, and read in full.
	Removed(ctx context.Context, q *query.Query) (*fit.Table, error)
	// Aggregates are what fit.SummarizeAggregates needs of q's other rows.
	Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error)
}

// SizedSource is a source wrapping another (a cache of its accounts, a
// principal's view of it) that passes on the wrapped source's Sizer, or
// says it has none (nil).
type SizedSource interface {
	Sized() Sizer
}

// SizerOf is src's Sizer — its own, or what a wrapping source passes on —
// and nil when it has none.
func SizerOf(src Source) Sizer {
	if w, ok := src.(SizedSource); ok {
		return w.Sized()
	}
	if s, ok := src.(Sizer); ok {
		return s
	}
	return nil
}

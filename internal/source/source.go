// Package source defines what a source of ad data is: something that lists the
// accounts a caller may query and answers a normalized query with a complete
// table. The embedded DuckDB warehouse, the ad-platform API connectors and the
// external warehouses all implement it; the MCP layer and the CLI only see this
// interface.
package source

import (
	"context"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Source is a plug-in provider of ad data.
type Source interface {
	// Accounts lists every account the source holds.
	Accounts(ctx context.Context) ([]ads.Account, error)
	// Query runs a normalized query and returns the complete result: every row
	// (only an explicit q.Limit cuts rows, and the table says how many existed),
	// the time column for q.Grain, the requested dimensions and metrics in order,
	// and the hidden parts of ratio metrics so the result can be rolled up exactly.
	Query(ctx context.Context, q *query.Query) (*fit.Table, error)
	// Close releases the source's resources.
	Close() error
}

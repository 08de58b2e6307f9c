package duckdb_test

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The conformance suite against DuckDB itself: every case selects rows, every
// empty case none, and coverage answers. (PostgreSQL and ClickHouse run it
// against DuckDB when their servers are up.)
func TestConformanceSelf(t *testing.T) {
	t.Cleanup(duckdbtest.Cleanup)
	src := duckdbtest.Open(t)
	sourcetest.Run(t, src, src, duckdbtest.Now())
}

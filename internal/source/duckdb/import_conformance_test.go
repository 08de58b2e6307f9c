package duckdb_test

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The import conformance suite on DuckDB, its own reference. (PostgreSQL and
// ClickHouse run it against DuckDB when their servers are up.)
func TestImportConformance(t *testing.T) {
	sourcetest.RunImport(t, duckdbtest.ImportWarehouse(), duckdbtest.ImportWarehouse())
}

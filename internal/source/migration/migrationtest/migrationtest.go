// Package migrationtest helps the warehouses' tests of schema migrations; it
// is linked into test binaries only.
package migrationtest

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// Purchases is a fact column no version declares, with a type in every
// dialect: the column a test declares to see the final step add it.
var Purchases = migration.Column{
	Name:     "purchases",
	Type:     map[string]string{"duckdb": "BIGINT", "postgres": "bigint", "clickhouse": "Int64"},
	Nullable: true,
}

// Declare makes cols the declared fact columns (migration.FactColumns) until
// the test ends. Not for parallel tests: every open reads them.
func Declare(t testing.TB, cols ...migration.Column) {
	t.Helper()
	old := migration.FactColumns
	migration.FactColumns = func() []migration.Column { return cols }
	t.Cleanup(func() { migration.FactColumns = old })
}

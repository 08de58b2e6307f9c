// Package migrationtest helps the warehouses' tests of schema migrations; it
// is linked into test binaries only.
package migrationtest

import (
	"slices"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
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

// version1Measures are the facts table's measure columns in version 1's
// layout, frozen with it.
var version1Measures = []string{"spend_micros", "impressions", "clicks", "link_clicks",
	"conversions", "conversion_value_micros", "video_views"}

// MetricsAfterVersion1 are the catalog's metrics whose fact column version
// 1's layout lacks: what a warehouse from before them cannot answer until it
// is migrated.
func MetricsAfterVersion1() []string {
	var out []string
	for _, c := range catalog.FactColumns() {
		if !slices.Contains(version1Measures, c.Name) {
			out = append(out, c.Metric)
		}
	}
	return out
}

// FieldsAfterVersion1 are MetricsAfterVersion1 and the dimensions whose data
// version 1's layout cannot hold (breakdown sets and the accounts'
// attribution windows, version 2): the conformance cases a warehouse
// holding only version 1's data answers with no row, or differently.
func FieldsAfterVersion1() []string {
	return append(MetricsAfterVersion1(), "age", "gender", "placement", "conversion_action", "attribution_window")
}

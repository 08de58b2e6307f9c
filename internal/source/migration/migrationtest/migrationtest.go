// Package migrationtest helps the warehouses' tests of schema migrations; it
// is linked into test binaries only.
package migrationtest

import (
	"slices"
	"strconv"
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

// Recorded are the versions a warehouse at the latest layout records, as the
// tests read them back (text, in order).
func Recorded() []string {
	var out []string
	for _, v := range migration.Versions {
		out = append(out, strconv.Itoa(v.Number))
	}
	return out
}

// After are the versions after n, in order: what a migration from version n
// applies.
func After(n int) []int {
	var out []int
	for _, v := range migration.Versions {
		if v.Number > n {
			out = append(out, v.Number)
		}
	}
	return out
}

// MigratedFrom is what `adsmcp migrate` reports for a warehouse at version n
// (recorded or recognised), written out here rather than by
// migration.Result.String, which it checks.
func MigratedFrom(n int) string {
	s := "schema version " + strconv.Itoa(n) + ", now " + strconv.Itoa(migration.Latest())
	for _, v := range migration.Versions[n:] {
		s += "; applied version " + strconv.Itoa(v.Number) + ": " + v.Summary
	}
	return s
}

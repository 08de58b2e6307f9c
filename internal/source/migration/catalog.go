package migration

import "github.com/adsmcp/adsmcp/internal/catalog"

// sqlTypes is the SQL type of each kind of stored measure, per dialect: money
// in integer micros and counts as 64-bit integers, fractional counts as
// doubles — the types version 1 gives the columns it has.
var sqlTypes = map[catalog.ColumnKind]map[string]string{
	catalog.Micros:  {"duckdb": "BIGINT", "postgres": "bigint", "clickhouse": "Int64"},
	catalog.Integer: {"duckdb": "BIGINT", "postgres": "bigint", "clickhouse": "Int64"},
	catalog.Double:  {"duckdb": "DOUBLE", "postgres": "double precision", "clickhouse": "Float64"},
}

// catalogColumns are the catalog's fact measure columns, the declared list of
// the final step: a metric added to the catalog gets its column in every
// warehouse users hold, with no version of its own.
//
// Every added column is nullable: the rows already there were written before
// the metric existed, and NULL says "no value" where a default 0 would be a
// made-up number; a row loaded or imported afterwards carries its value.
func catalogColumns() []Column {
	var out []Column
	for _, c := range catalog.FactColumns() {
		out = append(out, Column{Name: c.Name, Type: sqlTypes[c.Kind], Nullable: true})
	}
	return out
}

package migration

import (
	"fmt"
	"regexp"
)

// Column is a fact measure column the code declares: the final step of a
// migration adds it to a facts table that lacks it, so a new metric never
// breaks the warehouses users already hold.
type Column struct {
	// Name is the column's name in table facts.
	Name string
	// Type is its SQL type per dialect name ("duckdb": "BIGINT", "postgres":
	// "bigint", "clickhouse": "Int64"), without nullability.
	Type map[string]string
	// Nullable: rows that existed before the column, and rows written without
	// it, hold NULL ("no value"). Otherwise they hold Default.
	Nullable bool
	// Default is the SQL literal of a column that is not Nullable (e.g. "0").
	Default string
}

var columnName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// addColumn is the statement adding c to facts in dialect d.
func (d Dialect) addColumn(c Column) (string, error) {
	if !columnName.MatchString(c.Name) {
		return "", fmt.Errorf("fact column %q: want a lower-case SQL name (letters, digits, _)", c.Name)
	}
	t := c.Type[d.Name]
	if t == "" {
		return "", fmt.Errorf("fact column %s: no %s type declared", c.Name, d.Name)
	}
	if c.Nullable {
		if d.Nullable != nil {
			t = d.Nullable(t)
		}
		return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", factsTable, c.Name, t), nil
	}
	if c.Default == "" {
		return "", fmt.Errorf("fact column %s: not nullable, so it needs a Default for the rows already there", c.Name)
	}
	st := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s DEFAULT %s", factsTable, c.Name, t, c.Default)
	if d.AddsNotNull {
		st += " NOT NULL"
	}
	return st, nil
}

// FactColumns returns the fact measure columns the code declares, which
// Migrate's final step adds wherever facts lacks them; every warehouse
// passes it. They are the catalog's (catalogColumns); a variable so that a
// test can declare a column of its own (migrationtest.Declare).
var FactColumns = catalogColumns

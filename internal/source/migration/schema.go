package migration

import (
	"context"
	"fmt"
)

// Executor runs the runner's SQL on one warehouse: in the caller's
// transaction where the engine has them, so that a failed migration leaves
// the warehouse as it was.
type Executor interface {
	// Exec runs one statement (or, where the engine allows, several).
	Exec(ctx context.Context, statement string) error
	// Strings runs a query and returns the first column of its rows as text.
	Strings(ctx context.Context, query string) ([]string, error)
}

// Schema is one warehouse's layout in its dialect: the statements of every
// version in Versions.
type Schema struct {
	Dialect Dialect
	// Versions[n] are version n's statements, run in order. Version 1's
	// create tables only if they do not exist, so that it can complete a
	// warehouse recognised as version 1 by its tables. A version that only
	// derives rows (Version.Derived) has none. Later versions run
	// once, though on ClickHouse (no transactions) a version interrupted
	// halfway runs again: make its statements safe to repeat.
	Versions map[int][]string
}

// check reports a Schema lacking a version's statements, or with a version
// the list does not know: a programming error, caught by every test that
// opens the warehouse.
func (s Schema) check() error {
	for _, v := range Versions {
		if len(s.Versions[v.Number]) == 0 && v.Derived == nil {
			return fmt.Errorf("%s schema: no statements for version %d (%s)", s.Dialect.Name, v.Number, v.Summary)
		}
	}
	for n := range s.Versions {
		if n < 1 || n > Latest() {
			return fmt.Errorf("%s schema: statements for version %d, the list has versions 1 to %d", s.Dialect.Name, n, Latest())
		}
	}
	return nil
}

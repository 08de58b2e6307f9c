package duckdb

import (
	"context"

	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// newSource completes s: its statements that count and summarize results in
// the warehouse (source.Sizer) run on its database.
func newSource(s *Source, isDemo bool, demoLabel string) *Source {
	s.demo.Store(&demoState{isDemo, demoLabel})
	s.Sized = sqlgen.Sized{Dialect: sqlgen.DuckDB{}, Run: s.run}
	return s
}

func (s *Source) run(ctx context.Context, sql string, args []any, read func(sqlgen.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, sql, args...)
	if err != nil {
		s.noteCorruption(err)
		return err
	}
	defer rows.Close()
	if err := read(rows); err != nil {
		s.noteCorruption(err)
		return err
	}
	return nil
}

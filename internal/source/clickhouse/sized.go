package clickhouse

import (
	"context"

	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// run runs one of the statements that count and summarize results in the
// warehouse (source.Sizer), with the same settings and arguments as queries.
func (s *Source) run(ctx context.Context, sql string, args []any, read func(sqlgen.Rows) error) error {
	rows, err := s.db.QueryContext(s.settings(ctx), sql, bindArgs(args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}

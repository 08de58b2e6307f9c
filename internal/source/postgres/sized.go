package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// run runs one of the statements that count and summarize results in the
// warehouse (source.Sizer), in a read-only transaction under the statement
// timeout, as queries run.
func (s *Source) run(ctx context.Context, sql string, args []any, read func(sqlgen.Rows) error) error {
	return s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return read(rows)
	})
}

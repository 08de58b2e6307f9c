package migration

import (
	"context"
	"database/sql"
)

// SQLConn is what database/sql's *DB, *Conn and *Tx have in common.
type SQLConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SQL is an Executor over a database/sql handle (DuckDB, and ClickHouse's
// native reads).
func SQL(c SQLConn) Executor { return sqlExecutor{c} }

type sqlExecutor struct{ c SQLConn }

func (e sqlExecutor) Exec(ctx context.Context, statement string) error {
	_, err := e.c.ExecContext(ctx, statement)
	return err
}

func (e sqlExecutor) Strings(ctx context.Context, query string) ([]string, error) {
	rows, err := e.c.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

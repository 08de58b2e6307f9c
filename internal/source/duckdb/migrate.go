package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// Migrate brings the warehouse file at path to the latest schema version
// (`adsmcp migrate --db`), in one transaction: on any error it is left as
// it was. It needs DuckDB's write lock, so no other process may have the
// file open; a file holding no warehouse is refused
// (migration.ErrNoWarehouse).
func Migrate(ctx context.Context, path string) (migration.Result, error) {
	return migrateFile(ctx, path, migration.FactColumns())
}

func migrateFile(ctx context.Context, path string, declared []migration.Column) (res migration.Result, err error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return res, migrateOpenError(path, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, migrateOpenError(path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return res, migrateOpenError(path, err)
	}
	res, err = migration.Upgrade(ctx, migration.SQL(conn), warehouseSchema, declared)
	if err != nil {
		if _, rbErr := conn.ExecContext(context.Background(), "ROLLBACK"); rbErr != nil {
			err = errors.Join(err, rbErr)
		}
		return res, fmt.Errorf("warehouse %s: %w", path, err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return res, fmt.Errorf("warehouse %s: %w", path, err)
	}
	if res.Changed() {
		if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return res, fmt.Errorf("warehouse %s: checkpoint after migrating: %w", path, err)
		}
	}
	return res, nil
}

// migrateOpenError names the fix when another process holds the file.
func migrateOpenError(path string, err error) error {
	if strings.Contains(strings.ToLower(err.Error()), "lock") {
		return fmt.Errorf("the warehouse %s is open in another process (adsmcp serve?): stop it, migrate, then start it again: %w", path, err)
	}
	return fmt.Errorf("open warehouse %s: %w", path, err)
}

// upgradeOnOpen brings an older warehouse to the latest layout as Open opens
// it, when the file can be written (no other process has it open). When it
// cannot, an older layout that still serves the queries is read as it is;
// one that does not is refused, naming `adsmcp migrate`. A warehouse written
// by a newer adsmcp is refused. ro is the read-only handle Open holds, closed
// here when a migration needs the write lock (reopen then says so).
func upgradeOnOpen(ctx context.Context, path string, ro *sql.DB, logger *slog.Logger) (reopen bool, err error) {
	declared := migration.FactColumns()
	st, err := migration.Inspect(ctx, migration.SQL(ro), warehouseSchema, declared)
	if err != nil {
		return false, fmt.Errorf("warehouse %s: %w", path, err)
	}
	if st.Current() || st.Empty() {
		return false, nil
	}
	if st.Newer() {
		return false, fmt.Errorf("warehouse %s: %w", path, st.Readable())
	}
	ro.Close()
	res, err := migrateFile(ctx, path, declared)
	if err == nil {
		logger.Info("warehouse migrated", "path", path, "result", res.String())
		return true, nil
	}
	if rerr := st.Readable(); rerr != nil {
		return true, fmt.Errorf("warehouse %s: %w; it could not be migrated now (%w): run `adsmcp migrate --db %s` while no other adsmcp has it open",
			path, rerr, err, path)
	}
	logger.Info("warehouse at an older schema that still answers every query; not migrated now", "path", path,
		"schema", st.Version, "error", err)
	return true, nil
}

// ensureSchema brings the warehouse behind ex to the latest layout inside
// the caller's transaction: Load and Import create new warehouses with it.
func ensureSchema(ctx context.Context, ex migration.Executor) error {
	if _, err := migration.Migrate(ctx, ex, warehouseSchema, migration.FactColumns()); err != nil {
		return fmt.Errorf("duckdb: the schema: %w", err)
	}
	return nil
}

// driverExecutor runs the runner's SQL on the raw driver connection Load
// appends through.
type driverExecutor struct{ conn driver.Conn }

func (e driverExecutor) Exec(ctx context.Context, statement string) error {
	_, err := e.conn.(driver.ExecerContext).ExecContext(ctx, statement, nil)
	return err
}

func (e driverExecutor) Strings(ctx context.Context, query string) ([]string, error) {
	rows, err := e.conn.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	v := make([]driver.Value, 1)
	for {
		if err := rows.Next(v); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		s, ok := v[0].(string)
		if !ok {
			return nil, fmt.Errorf("duckdb: %q: a %T, want text", query, v[0])
		}
		out = append(out, s)
	}
}

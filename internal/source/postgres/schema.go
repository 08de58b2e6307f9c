package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// warehouseSchema is the warehouse's layout, version by version
// (internal/source/migration). A brand-new warehouse gets every version in
// order, so there is no separate "latest" DDL to drift from them.
var warehouseSchema = migration.Schema{Dialect: migration.Postgres, Versions: map[int][]string{
	1: {Schema},
	2: {version2},
	3: {version3},
}}

// version3 is the sync state (importer.SyncState), one row per account a
// sync has written or tried: the span of days synced, the --since target,
// and the last success, attempt and error (UTC; docs/warehouse.md,
// "sync_state"). Reads do not need it: a warehouse without it has no
// freshness to state.
const version3 = `
CREATE TABLE IF NOT EXISTS sync_state (
	account_id     text PRIMARY KEY,
	platform       text NOT NULL,
	synced_from    date,
	synced_through date,
	backfill_from  date,
	last_success   timestamp,
	last_attempt   timestamp NOT NULL,
	last_error     text NOT NULL
);
`

// version2 adds breakdown sets (catalog.BreakdownSet): every existing fact row
// is a delivery row; the other sets' rows carry their own dimensions. And the
// accounts' attribution window and counted actions (NULL: not said).
const version2 = `
ALTER TABLE facts ADD COLUMN IF NOT EXISTS breakdown text NOT NULL DEFAULT 'delivery';
ALTER TABLE facts ADD COLUMN IF NOT EXISTS age text;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS gender text;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS placement text;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS conversion_action text;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS attribution_window text;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS conversion_actions text;
`

// Migrate brings the warehouse in the connection's current schema to the
// latest schema version (`adsmcp migrate --target postgres://…`), in one
// transaction, one migration or import at a time: on any error it is left as
// it was. Its role needs the right to alter the warehouse's tables and to
// create one (adsmcp_schema). A schema holding no warehouse is refused
// (migration.ErrNoWarehouse).
func Migrate(ctx context.Context, pool *pgxpool.Pool) (migration.Result, error) {
	return migrate(ctx, pool, migration.FactColumns())
}

func migrate(ctx context.Context, pool *pgxpool.Pool, declared []migration.Column) (res migration.Result, err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return res, fmt.Errorf("postgres: migrate: %w", err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // after Commit, a no-op; before, the first error is the one to report
	// The imports' lock (import.go): a migration never runs beside an import.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsmcp import ' || coalesce(current_schema(), '')))`); err != nil {
		return res, fmt.Errorf("postgres: migrate: %w", err)
	}
	if res, err = migration.Upgrade(ctx, pgExecutor{tx}, warehouseSchema, declared); err != nil {
		return res, fmt.Errorf("postgres: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return res, fmt.Errorf("postgres: migrate: %w", err)
	}
	return res, nil
}

// ensureSchema brings the warehouse to the latest layout inside the caller's
// transaction: Load and Import create new warehouses with it.
func ensureSchema(ctx context.Context, q pgQuerier) error {
	if _, err := migration.Migrate(ctx, pgExecutor{q}, warehouseSchema, migration.FactColumns()); err != nil {
		return fmt.Errorf("postgres: the schema: %w", err)
	}
	return nil
}

// upgradeIfBehind migrates an existing warehouse, inside the caller's
// transaction, only when it is behind (migration.MigrateIfBehind): an import
// into a current warehouse needs no right to alter its tables.
func upgradeIfBehind(ctx context.Context, q pgQuerier) error {
	if _, err := migration.MigrateIfBehind(ctx, pgExecutor{q}, warehouseSchema, migration.FactColumns()); err != nil {
		return fmt.Errorf("postgres: migrating the warehouse (fix: run `adsmcp migrate --target URL` as a role that may alter its tables): %w", err)
	}
	return nil
}

// checkSchema refuses, when the server opens the warehouse, a layout it
// cannot answer from: written by a newer adsmcp, or older by a version or a
// column the reads need. The server only reads, so it never migrates.
func (s *Source) checkSchema(ctx context.Context) error {
	var st migration.State
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		st, err = migration.Inspect(ctx, pgExecutor{tx}, warehouseSchema, migration.FactColumns())
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := st.Readable(); err != nil {
		return fmt.Errorf("postgres: %w (adsmcp migrate --target with this database's URL)", err)
	}
	return nil
}

// pgQuerier is what pgx's pool, connection and transaction have in common.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pgExecutor runs the migration runner's SQL through pgx.
type pgExecutor struct{ q pgQuerier }

func (e pgExecutor) Exec(ctx context.Context, statement string) error {
	_, err := e.q.Exec(ctx, statement)
	return err
}

func (e pgExecutor) Strings(ctx context.Context, query string) ([]string, error) {
	rows, err := e.q.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

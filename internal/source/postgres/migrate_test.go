package postgres_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/migration"
	"github.com/adsmcp/adsmcp/internal/source/migration/migrationtest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// v1Tables are the tables of schema version 1.
var v1Tables = []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach"}

// legacyWarehouse is a fresh schema holding the warehouse adsmcp wrote
// before schema versions existed: version 1's DDL (frozen) and no version,
// with the duckdbtest data. It returns the schema's DSN and a pool on it.
func legacyWarehouse(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	loaded := openLoaded(t)
	var from string
	if err := loaded.Pool().QueryRow(ctx, `SELECT current_schema()`).Scan(&from); err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.FreshSchema(t, "adsmcp_legacy")
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, postgres.Schema); err != nil {
		t.Fatal(err)
	}
	for _, table := range v1Tables {
		var cols string
		if err := pool.QueryRow(ctx, `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position)
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table).Scan(&cols); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO `+table+` (`+cols+`) SELECT `+cols+` FROM `+pgx.Identifier{from, table}.Sanitize()); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	return dsn, pool
}

func recorded(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	ctx := context.Background()
	var present bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('adsmcp_schema') IS NOT NULL`).Scan(&present); err != nil || !present {
		return nil
	}
	rows, err := pool.Query(ctx, migration.Postgres.RecordedVersions+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openSource(t *testing.T, dsn string) (*postgres.Source, error) {
	t.Helper()
	src, err := postgres.Open(context.Background(), postgres.Options{DSN: dsn})
	if err == nil {
		t.Cleanup(func() { src.Close() })
	}
	return src, err
}

// A warehouse from before schema versions is read as it is (the server never
// writes), and adsmcp migrate records its version without changing an
// answer.
func TestLegacyWarehouseIsMigrated(t *testing.T) {
	ctx := context.Background()
	dsn, pool := legacyWarehouse(t)
	// Version 1's layout serves as long as the code declares no fact column
	// it lacks; the catalog's newer columns (video_views_p100) are the case of
	// TestDeclaredFactColumnIsAdded and TestCatalogColumnsAreAdded.
	migrationtest.Declare(t)
	old, err := openSource(t, dsn)
	if err != nil {
		t.Fatalf("open the old layout: %v", err)
	}
	if got := recorded(t, pool); got != nil {
		t.Fatalf("opening recorded %v", got)
	}
	res, err := postgres.Migrate(ctx, pool)
	if err != nil || res.String() != "schema version 1, recognised by its tables and now recorded" {
		t.Fatalf("migrate: %v: %s", err, res)
	}
	if got := recorded(t, pool); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
	migrated, err := openSource(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.RunWithout(t, old, migrated, duckdbtest.Now(), migrationtest.MetricsAfterVersion1()...)
	if res, err := postgres.Migrate(ctx, pool); err != nil || res.Changed() {
		t.Errorf("second migrate: %+v, %v", res, err)
	}
}

// New warehouses (adsmcp demo --target, import --target) are created at the
// latest version, recorded.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	if got := recorded(t, openLoaded(t).Pool()); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
}

// A declared fact column the warehouse lacks: the server refuses to open it,
// naming adsmcp migrate; the migration adds it, NULL in the rows there, once.
func TestDeclaredFactColumnIsAdded(t *testing.T) {
	ctx := context.Background()
	dsn, pool := legacyWarehouse(t)
	migrationtest.Declare(t, migrationtest.Purchases)
	if _, err := openSource(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
		!strings.Contains(err.Error(), "purchases") {
		t.Errorf("open lacking a declared column: %v", err)
	}
	res, err := postgres.Migrate(ctx, pool)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM facts WHERE purchases IS NOT NULL`).Scan(&n); err != nil || n != 0 {
		t.Errorf("old rows with purchases: %d, %v", n, err)
	}
	if res, err := postgres.Migrate(ctx, pool); err != nil || res.Changed() {
		t.Errorf("second migrate: %+v, %v", res, err)
	}
	if _, err := openSource(t, dsn); err != nil {
		t.Errorf("open after the migration: %v", err)
	}
}

func TestNewerWarehouseIsRefused(t *testing.T) {
	ctx := context.Background()
	pool := openLoaded(t).Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO adsmcp_schema (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	var dsn string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&dsn); err != nil {
		t.Fatal(err)
	}
	want := "this warehouse was written by a newer adsmcp (schema 99); upgrade adsmcp"
	if _, err := openSource(t, pgtest.WithSearchPath(pgtest.DSN(t), dsn)); !errors.Is(err, migration.ErrNewer) || !strings.Contains(err.Error(), want) {
		t.Errorf("open: %v", err)
	}
	if _, err := postgres.Migrate(ctx, pool); !errors.Is(err, migration.ErrNewer) {
		t.Errorf("migrate: %v", err)
	}
}

func TestMigrateRefusesASchemaWithoutAWarehouse(t *testing.T) {
	if _, err := postgres.Migrate(context.Background(), openFresh(t).Pool()); !errors.Is(err, migration.ErrNoWarehouse) {
		t.Errorf("migrate: %v", err)
	}
}

package clickhouse

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/migration"
	"github.com/adsmcp/adsmcp/internal/source/migration/migrationtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

func mustDo(t *testing.T, c *httpClient, statement string) string {
	t.Helper()
	out, err := c.do(context.Background(), statement, nil)
	if err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
	return out
}

func loadedForTest(t *testing.T) (string, *httpClient) {
	t.Helper()
	dsn := chtest.FreshDatabase(t)
	if err := LoadDemo(context.Background(), dsn, duckdbtest.Config, nil); err != nil {
		t.Fatalf("load the demo dataset: %v", err)
	}
	c, err := newHTTPClient(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, c
}

// legacyWarehouse is a fresh database holding the warehouse adsmcp wrote
// before schema versions existed: version 1's DDL (frozen) and no version,
// with the duckdbtest data.
func legacyWarehouse(t *testing.T) (string, *httpClient) {
	t.Helper()
	_, from := loadedForTest(t)
	dsn := chtest.FreshDatabase(t)
	c, err := newHTTPClient(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range statements(Schema) {
		mustDo(t, c, st)
	}
	for _, table := range tables {
		cols := strings.TrimSpace(mustDo(t, c, "SELECT arrayStringConcat(groupArray(name), ', ') FROM (SELECT name FROM system.columns "+
			"WHERE database = currentDatabase() AND table = "+literal(table)+")"))
		mustDo(t, c, "INSERT INTO "+table+" ("+cols+") SELECT "+cols+" FROM "+from.e.database+"."+table)
	}
	return dsn, c
}

func recordedVersions(t *testing.T, c *httpClient) []string {
	t.Helper()
	if strings.TrimSpace(mustDo(t, c, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'adsmcp_schema'")) == "0" {
		return nil
	}
	return strings.Fields(mustDo(t, c, migration.ClickHouse.RecordedVersions+" ORDER BY version"))
}

func openForTest(t *testing.T, dsn string) (*Source, error) {
	t.Helper()
	src, err := Open(context.Background(), Options{DSN: dsn})
	if err == nil {
		t.Cleanup(func() { src.Close() })
	}
	return src, err
}

// A warehouse from before schema versions is read as it is (reads never
// write), and adsmcp migrate records its version without changing an answer.
func TestLegacyWarehouseIsMigrated(t *testing.T) {
	ctx := context.Background()
	dsn, c := legacyWarehouse(t)
	// Version 1's layout serves as long as the code declares no fact column
	// it lacks; the catalog's newer columns (video_views_p100) are the case of
	// TestDeclaredFactColumnIsAdded.
	migrationtest.Declare(t)
	old, err := openForTest(t, dsn)
	if err != nil {
		t.Fatalf("open the old layout: %v", err)
	}
	if got := recordedVersions(t, c); got != nil {
		t.Fatalf("opening recorded %v", got)
	}
	res, err := Migrate(ctx, dsn)
	if err != nil || res.String() != "schema version 1, recognised by its tables and now recorded" {
		t.Fatalf("migrate: %v: %s", err, res)
	}
	if got := recordedVersions(t, c); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
	migrated, err := openForTest(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.RunWithout(t, old, migrated, duckdbtest.Now(), migrationtest.MetricsAfterVersion1()...)
	if res, err := Migrate(ctx, dsn); err != nil || res.Changed() {
		t.Errorf("second migrate: %+v, %v", res, err)
	}
}

// New warehouses are created at the latest version, recorded; Drop drops
// the version with the tables.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	dsn, c := loadedForTest(t)
	if got := recordedVersions(t, c); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
	if err := Drop(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	if n := strings.TrimSpace(mustDo(t, c, "SELECT count() FROM system.tables WHERE database = currentDatabase()")); n != "0" {
		t.Errorf("%s tables after Drop", n)
	}
}

// A declared fact column the warehouse lacks: the server refuses to open it,
// naming adsmcp migrate; the migration adds it, NULL in the rows there, once.
func TestDeclaredFactColumnIsAdded(t *testing.T) {
	ctx := context.Background()
	dsn, c := legacyWarehouse(t)
	migrationtest.Declare(t, migrationtest.Purchases)
	if _, err := openForTest(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
		!strings.Contains(err.Error(), "purchases") {
		t.Errorf("open lacking a declared column: %v", err)
	}
	res, err := Migrate(ctx, dsn)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	if n := strings.TrimSpace(mustDo(t, c, "SELECT count() FROM facts WHERE purchases IS NOT NULL")); n != "0" {
		t.Errorf("%s old rows with purchases", n)
	}
	if res, err := Migrate(ctx, dsn); err != nil || res.Changed() {
		t.Errorf("second migrate: %+v, %v", res, err)
	}
	if _, err := openForTest(t, dsn); err != nil {
		t.Errorf("open after the migration: %v", err)
	}
}

func TestNewerWarehouseIsRefused(t *testing.T) {
	dsn, c := loadedForTest(t)
	mustDo(t, c, "INSERT INTO adsmcp_schema (version) VALUES (99)")
	want := "this warehouse was written by a newer adsmcp (schema 99); upgrade adsmcp"
	if _, err := openForTest(t, dsn); !errors.Is(err, migration.ErrNewer) || !strings.Contains(err.Error(), want) {
		t.Errorf("open: %v", err)
	}
	if _, err := Migrate(context.Background(), dsn); !errors.Is(err, migration.ErrNewer) {
		t.Errorf("migrate: %v", err)
	}
}

func TestMigrateRefusesADatabaseWithoutAWarehouse(t *testing.T) {
	if _, err := Migrate(context.Background(), chtest.FreshDatabase(t)); !errors.Is(err, migration.ErrNoWarehouse) {
		t.Errorf("migrate: %v", err)
	}
}

package duckdb

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source/migration"
	"github.com/adsmcp/adsmcp/internal/source/migration/migrationtest"
)

// legacyWarehouse writes, at a new path, the warehouse adsmcp wrote before
// schema versions existed: version 1's DDL (frozen) and no version, holding
// the package's test data.
func legacyWarehouse(t *testing.T) string {
	t.Helper()
	src := openTestSource(t)
	path := filepath.Join(t.TempDir(), "legacy.duckdb")
	db := openLoadDB(t, path)
	if _, err := db.Exec(version1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ATTACH '` + src.Path() + `' AS src (READ_ONLY)`); err != nil {
		t.Fatal(err)
	}
	for _, table := range loadTables {
		var cols string
		if err := db.QueryRow(`SELECT string_agg(column_name, ', ' ORDER BY column_index) FROM duckdb_columns()
			WHERE database_name = current_database() AND table_name = ?`, table).Scan(&cols); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO ` + table + ` SELECT ` + cols + ` FROM src.` + table + ` ORDER BY rowid`); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	if _, err := db.Exec(`DETACH src`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// answers are the CSV answers of a few queries touching every table.
func answers(t *testing.T, src *Source) string {
	t.Helper()
	var b bytes.Buffer
	for _, raw := range []string{
		`{"platforms":["meta_ads"],"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","video_views","ctr","roas"],"dimensions":["platform","account_name"],"date_preset":"last_90d"}`,
		`{"platforms":["google_ads"],"metrics":["spend","reach","frequency"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_range":{"start":"2025-12-01","end":"2026-02-28"}}`,
		`{"platforms":["tiktok_ads"],"metrics":["clicks"],"dimensions":["adset_name","ad_name","country","device"],"date_preset":"last_7d","sort":[{"field":"clicks","direction":"desc"}],"limit":20}`,
	} {
		_, tab := run(t, src, raw)
		if err := fit.WriteCSV(&b, tab); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func recordedVersions(t *testing.T, path string) []string {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	if countRows(t, db, `SELECT count(*) FROM duckdb_tables() WHERE table_name = 'adsmcp_schema'`) == 0 {
		return nil
	}
	out, err := migration.SQL(db).Strings(context.Background(), migration.DuckDB.RecordedVersions+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// holdOpen opens path read-only in this process until the test ends: an
// Open then cannot take the write lock, as when a server reads the file.
func holdOpen(t *testing.T, path string) func() {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return func() { db.Close() }
}

// A warehouse from before schema versions answers as it did while it cannot
// be migrated, and is migrated by the next open that can write: the version
// recorded, every row and every answer the same.
func TestLegacyWarehouseIsMigratedOnOpen(t *testing.T) {
	ctx := context.Background()
	want := answers(t, openTestSource(t))
	path := legacyWarehouse(t)
	sum := warehouseChecksumAt(t, path)
	// Version 1's layout serves as long as the code declares no fact column
	// it lacks; the catalog's newer columns (video_views_p100) are the case of
	// TestDeclaredFactColumnIsAdded and TestCatalogColumnsAreAdded.
	migrationtest.Declare(t)

	release := holdOpen(t, path)
	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatalf("read-only open of the old layout: %v", err)
	}
	if got := answers(t, src); got != want {
		t.Errorf("answers of the old layout differ:\n%s\nwant\n%s", got, want)
	}
	src.Close()
	release()
	if got := recordedVersions(t, path); len(got) != 0 {
		t.Fatalf("a read-only open recorded %v", got)
	}

	src, err = Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := answers(t, src); got != want {
		t.Errorf("answers after the migration differ:\n%s\nwant\n%s", got, want)
	}
	src.Close()
	if got := recordedVersions(t, path); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded versions %v, want [1]", got)
	}
	if got := warehouseChecksumAt(t, path); got != sum {
		t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
	}
	res, err := Migrate(ctx, path)
	if err != nil || res.Changed() {
		t.Errorf("adsmcp migrate after the open: %+v, %v", res, err)
	}
}

// New warehouses are created at the latest version, recorded.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	openTestSource(t)
	if got := recordedVersions(t, filepath.Join(testDir, "test.duckdb")); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded versions %v", got)
	}
}

// A declared fact column the warehouse lacks: a read-only open is refused
// naming adsmcp migrate (queries would need it); an open that can write adds
// it, NULL in the rows already there, once.
func TestDeclaredFactColumnIsAdded(t *testing.T) {
	ctx := context.Background()
	want := answers(t, openTestSource(t))
	path := legacyWarehouse(t)
	migrationtest.Declare(t, migrationtest.Purchases)

	release := holdOpen(t, path)
	_, err := Open(ctx, path, Options{NoDemoFill: true})
	if !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate --db "+path) ||
		!strings.Contains(err.Error(), "purchases") {
		t.Errorf("read-only open lacking a declared column: %v", err)
	}
	release()

	res, err := Migrate(ctx, path)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) || !slices.Equal(res.Applied, []int{1}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	db := openLoadDB(t, path+"?access_mode=read_only")
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE purchases IS NOT NULL`); n != 0 {
		t.Errorf("%d old rows with purchases", n)
	}
	db.Close()
	if res, err := Migrate(ctx, path); err != nil || res.Changed() {
		t.Errorf("second migrate: %+v, %v", res, err)
	}
	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := answers(t, src); got != want {
		t.Errorf("answers after adding the column differ")
	}
}

// The catalog's own columns, with no test declaring any: a warehouse written
// before video_views_p100 existed is refused by a read-only open naming
// adsmcp migrate, and the next open that can write adds the column (NULL in
// the rows already there: they were written without it), after which the
// metric answers — empty for those rows — and every other answer is the same.
func TestCatalogColumnsAreAdded(t *testing.T) {
	ctx := context.Background()
	want := answers(t, openTestSource(t))
	path := legacyWarehouse(t)

	release := holdOpen(t, path)
	if _, err := Open(ctx, path, Options{NoDemoFill: true}); !errors.Is(err, migration.ErrBehind) ||
		!strings.Contains(err.Error(), "video_views_p100") || !strings.Contains(err.Error(), "adsmcp migrate --db "+path) {
		t.Errorf("read-only open of a warehouse without video_views_p100: %v", err)
	}
	release()

	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := answers(t, src); got != want {
		t.Errorf("answers after adding the catalog's columns differ:\n%s\nwant\n%s", got, want)
	}
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE video_views_p100 IS NOT NULL`); n != 0 {
		t.Errorf("%d old rows with video_views_p100", n)
	}
}

func TestNewerWarehouseIsRefused(t *testing.T) {
	ctx := context.Background()
	path := legacyWarehouse(t)
	if _, err := Migrate(ctx, path); err != nil {
		t.Fatal(err)
	}
	db := openLoadDB(t, path)
	if _, err := db.Exec(`INSERT INTO adsmcp_schema (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	want := "this warehouse was written by a newer adsmcp (schema 99); upgrade adsmcp"
	if _, err := Open(ctx, path, Options{NoDemoFill: true}); !errors.Is(err, migration.ErrNewer) || !strings.Contains(err.Error(), want) {
		t.Errorf("open: %v", err)
	}
	if _, err := Migrate(ctx, path); !errors.Is(err, migration.ErrNewer) {
		t.Errorf("migrate: %v", err)
	}
}

func TestMigrateRefusesAFileWithoutAWarehouse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.duckdb")
	if _, err := Migrate(context.Background(), path); !errors.Is(err, migration.ErrNoWarehouse) {
		t.Errorf("migrate: %v", err)
	}
}

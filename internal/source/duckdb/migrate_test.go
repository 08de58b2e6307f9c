package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// the package's test data (its delivery rows: version 1 has no other sets).
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
	for table, cols := range columnsAt(t, db) {
		where := ""
		if table == "facts" {
			where = ` WHERE breakdown = 'delivery'`
		}
		if _, err := db.Exec(`INSERT INTO ` + table + ` SELECT ` + cols + ` FROM src.` + table + where + ` ORDER BY rowid`); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	if _, err := db.Exec(`DETACH src`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// version1Warehouse is legacyWarehouse with version 1 recorded, as the
// first adsmcp with schema versions left it.
func version1Warehouse(t *testing.T) string {
	t.Helper()
	path := legacyWarehouse(t)
	db := openLoadDB(t, path)
	if _, err := db.Exec(migration.DuckDB.CreateVersionTable); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO adsmcp_schema (version) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// columnsAt are the columns of each of the warehouse's tables (loadTables)
// in db's own database, comma-separated in their order.
func columnsAt(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range loadTables {
		var cols string
		if err := db.QueryRow(`SELECT string_agg(column_name, ', ' ORDER BY column_index) FROM duckdb_columns()
			WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`, table).Scan(&cols); err != nil {
			t.Fatalf("columns of %s: %v", table, err)
		}
		out[table] = cols
	}
	return out
}

// checksumOf sums, per table, the rows' values in the columns cols names
// (columnsAt of the layout before a migration): what a migration must leave
// as it found, whatever columns it adds. Rows are taken in their values'
// order, so it does not depend on where the engine keeps them. Meta's
// device_platform rows, which version 4 derives where they are missing, are
// left out (TestMigrateDerivesMetaDevicePlatform and
// TestMigrateKeepsMetaDevicePlatform check them).
func checksumOf(t *testing.T, path string, cols map[string]string) string {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	old := ""
	if countRows(t, db, `SELECT count(*) FROM duckdb_columns() WHERE table_name = 'facts' AND column_name = 'breakdown'`) > 0 {
		old = ` WHERE breakdown IS DISTINCT FROM 'device_platform'`
	}
	var parts []string
	for _, table := range loadTables {
		var sum string
		where := ""
		if table == "facts" {
			where = old
		}
		q := `SELECT count(*) || ' ' || md5(coalesce(string_agg(r, chr(10) ORDER BY r), '')) FROM (SELECT row(` + cols[table] + `)::VARCHAR AS r FROM ` + table + where + `)`
		if err := db.QueryRow(q).Scan(&sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		parts = append(parts, table+"="+sum)
	}
	return strings.Join(parts, " ")
}

// checkVersion2Defaults: every row a warehouse held before version 2 is a
// delivery fact row without the other sets' dimensions, and its accounts say
// no attribution window or counted actions (the old layout never said). The
// device_platform rows version 4 derives from them are not among them.
func checkVersion2Defaults(t *testing.T, path string) {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	if n := countRows(t, db, `SELECT count(*) FROM facts`); n == 0 {
		t.Fatal("no fact rows to check")
	}
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE breakdown IS DISTINCT FROM 'device_platform' AND (breakdown IS DISTINCT FROM 'delivery'
		OR age IS NOT NULL OR gender IS NOT NULL OR placement IS NOT NULL OR conversion_action IS NOT NULL)`); n != 0 {
		t.Errorf("%d old fact rows not plain delivery rows", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM accounts`); n == 0 {
		t.Fatal("no accounts to check")
	}
	if n := countRows(t, db, `SELECT count(*) FROM accounts WHERE attribution_window IS NOT NULL OR conversion_actions IS NOT NULL`); n != 0 {
		t.Errorf("%d old accounts with an attribution window or counted actions", n)
	}
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

// migratedToLatest is what Migrate reports for a warehouse at version 1.
var migratedToLatest = migrationtest.MigratedFrom(1)

// A warehouse from before schema versions cannot be read while it cannot be
// migrated (version 2 is needed by every query), and is migrated by the next
// open that can write: both versions recorded, every old row and every
// answer the same as the fresh warehouse's.
func TestLegacyWarehouseIsMigratedOnOpen(t *testing.T) {
	ctx := context.Background()
	want := answers(t, openTestSource(t))
	path := legacyWarehouse(t)
	db := openLoadDB(t, path+"?access_mode=read_only")
	cols := columnsAt(t, db)
	db.Close()
	sum, whole := checksumOf(t, path, cols), warehouseChecksumAt(t, path)
	// Only version 2 is under test: the catalog's newer fact columns
	// (video_views_p100) are the case of TestDeclaredFactColumnIsAdded and
	// TestCatalogColumnsAreAdded.
	migrationtest.Declare(t)

	release := holdOpen(t, path)
	_, err := Open(ctx, path, Options{NoDemoFill: true})
	if !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate --db "+path) ||
		!strings.Contains(err.Error(), "lacks version 2: ") {
		t.Errorf("read-only open of the version 1 layout: %v", err)
	}
	release()
	if got := recordedVersions(t, path); len(got) != 0 {
		t.Fatalf("a read-only open recorded %v", got)
	}
	if got := warehouseChecksumAt(t, path); got != whole {
		t.Fatalf("a read-only open changed the warehouse:\n%s\nwant\n%s", got, whole)
	}

	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := answers(t, src); got != want {
		t.Errorf("answers after the migration differ:\n%s\nwant\n%s", got, want)
	}
	src.Close()
	if got := recordedVersions(t, path); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded versions %v, want %v", got, migrationtest.Recorded())
	}
	if got := checksumOf(t, path, cols); got != sum {
		t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
	}
	checkVersion2Defaults(t, path)
	res, err := Migrate(ctx, path)
	if err != nil || res.Changed() {
		t.Errorf("adsmcp migrate after the open: %+v, %v", res, err)
	}
	if got := recordedVersions(t, path); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded versions after adsmcp migrate %v, want %v", got, migrationtest.Recorded())
	}
}

// adsmcp migrate brings a version 1 warehouse, with its version recorded or
// not, to version 2: version 2 applied once (version 1's statements again
// for one without a record: they only create what is missing), both
// recorded, every old row kept and every answer the fresh warehouse's.
func TestMigrateAppliesVersion2(t *testing.T) {
	ctx := context.Background()
	want := answers(t, openTestSource(t))
	migrationtest.Declare(t)
	for _, c := range []struct {
		name      string
		warehouse func(*testing.T) string
		applied   []int
	}{
		{"unversioned", legacyWarehouse, migrationtest.After(0)},
		{"version 1 recorded", version1Warehouse, migrationtest.After(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := c.warehouse(t)
			db := openLoadDB(t, path+"?access_mode=read_only")
			cols := columnsAt(t, db)
			db.Close()
			sum := checksumOf(t, path, cols)

			res, err := Migrate(ctx, path)
			if err != nil || !slices.Equal(res.Applied, c.applied) || len(res.Added) != 0 || res.String() != migratedToLatest {
				t.Fatalf("migrate: applied %v, added %v, %q, %v; want applied %v and %q", res.Applied, res.Added, res, err, c.applied, migratedToLatest)
			}
			if got := recordedVersions(t, path); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded versions %v, want %v", got, migrationtest.Recorded())
			}
			if got := checksumOf(t, path, cols); got != sum {
				t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
			}
			checkVersion2Defaults(t, path)
			if res, err := Migrate(ctx, path); err != nil || res.Changed() {
				t.Errorf("second migrate: %+v, %v", res, err)
			}
			if got := recordedVersions(t, path); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded versions after a second migrate %v, want %v", got, migrationtest.Recorded())
			}
			src, err := Open(ctx, path, Options{NoDemoFill: true})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if got := answers(t, src); got != want {
				t.Errorf("answers after the migration differ:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// New warehouses are created at the latest version, every version recorded.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	openTestSource(t)
	if got := recordedVersions(t, filepath.Join(testDir, "test.duckdb")); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded versions %v, want %v", got, migrationtest.Recorded())
	}
}

// A declared fact column a version 1 warehouse lacks too: a read-only open is refused
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
		!strings.Contains(err.Error(), "lacks version 2: ") || !strings.Contains(err.Error(), "facts columns purchases") {
		t.Errorf("read-only open lacking version 2 and a declared column: %v", err)
	}
	release()

	res, err := Migrate(ctx, path)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) || !slices.Equal(res.Applied, migrationtest.After(0)) {
		t.Fatalf("migrate: applied %v, added %v, %v; want applied %v, added [purchases]", res.Applied, res.Added, err, migrationtest.After(0))
	}
	db := openLoadDB(t, path+"?access_mode=read_only")
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE purchases IS NOT NULL`); n != 0 {
		t.Errorf("%d old rows with purchases", n)
	}
	// The final step runs after the versions: the declared column follows
	// version 2's.
	var cols string
	if err := db.QueryRow(`SELECT string_agg(column_name, ' ' ORDER BY column_index) FROM duckdb_columns()
		WHERE database_name = current_database() AND table_name = 'facts' AND column_name IN ('conversion_action', 'purchases')`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != "conversion_action purchases" {
		t.Errorf("facts columns in the order %q, want version 2's conversion_action before the declared purchases", cols)
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

// warehouseAt is a warehouse at schema version n (2 or 3): a migrated
// legacyWarehouse with the later versions taken back. Without devices it
// holds Meta's delivery rows and no device_platform row, as every warehouse
// written before Meta's device × publisher_platform rows were a set of their
// own; with devices it keeps the rows version 4 derived (a warehouse a newer
// writer filled: nothing left to derive).
func warehouseAt(t *testing.T, n int, devices bool) string {
	t.Helper()
	path := legacyWarehouse(t)
	if _, err := Migrate(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	db := openLoadDB(t, path)
	take := fmt.Sprintf(`DELETE FROM adsmcp_schema WHERE version > %d;`, n)
	if n < 3 {
		take += `DROP TABLE sync_state;`
	}
	if !devices {
		take += `DELETE FROM facts WHERE breakdown = 'device_platform';`
	}
	if _, err := db.Exec(take); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

// Version 3 (sync_state) is not needed by reads: a read-only open of a
// version 2 warehouse (with Meta's device rows: nothing for version 4 to
// derive) answers as before, writing nothing; adsmcp migrate then applies
// version 3, an empty sync_state, and version 4, which writes nothing: every
// row kept.
func TestMigrateAppliesVersion3(t *testing.T) {
	ctx := context.Background()
	migrationtest.Declare(t)
	path := warehouseAt(t, 2, true)
	db := openLoadDB(t, path+"?access_mode=read_only")
	cols := columnsAt(t, db)
	db.Close()
	sum := checksumOf(t, path, cols)

	release := holdOpen(t, path)
	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatalf("read-only open of the version 2 layout: %v", err)
	}
	before := answers(t, src)
	states, err := src.SyncStates(ctx)
	if err != nil || len(states) != 0 {
		t.Errorf("sync states of a warehouse without sync_state: %v, %v; want none", states, err)
	}
	src.Close()
	release()
	if got := recordedVersions(t, path); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("a read-only open recorded %v", got)
	}

	res, err := Migrate(ctx, path)
	if err != nil || !slices.Equal(res.Applied, migrationtest.After(2)) || res.String() != migrationtest.MigratedFrom(2) {
		t.Fatalf("migrate: applied %v, %q, %v; want %v and %q", res.Applied, res, err, migrationtest.After(2), migrationtest.MigratedFrom(2))
	}
	if got := recordedVersions(t, path); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded versions %v, want %v", got, migrationtest.Recorded())
	}
	if got := checksumOf(t, path, cols); got != sum {
		t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
	}
	src, err = Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := answers(t, src); got != before {
		t.Errorf("answers after version 3 differ:\n%s\nwant\n%s", got, before)
	}
	if states, err := src.SyncStates(ctx); err != nil || len(states) != 0 {
		t.Errorf("sync states after the migration: %v, %v; want none", states, err)
	}
}

// metaDeviceAnswers are the CSV answers of queries by Meta's device and
// publisher_platform (the device_platform set), per ad and day, in total
// and beside TikTok's devices.
func metaDeviceAnswers(t *testing.T, src *Source) string {
	t.Helper()
	var b bytes.Buffer
	for _, raw := range []string{
		`{"platforms":["meta_ads"],"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","video_views"],"dimensions":["account_name","device","publisher_platform"],"date_preset":"last_90d"}`,
		`{"platforms":["meta_ads"],"metrics":["spend","clicks"],"dimensions":["ad_name","device"],"time_granularity":"daily","date_preset":"last_7d","sort":[{"field":"spend","direction":"desc"}],"limit":50}`,
		`{"platforms":["meta_ads","tiktok_ads"],"metrics":["spend","conversions"],"dimensions":["platform","device"],"date_preset":"last_30d"}`,
	} {
		_, tab := run(t, src, raw)
		if tab.Len() == 0 {
			t.Fatalf("%s: no row", raw)
		}
		if err := fit.WriteCSV(&b, tab); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// A warehouse written before Meta's device × publisher_platform rows were a
// set of their own (version 3 or older, holding Meta's delivery rows only)
// would answer every Meta query by device with no row. A read-only open of
// it refuses, naming adsmcp migrate; the migration derives the rows from the
// delivery rows, so that it answers as the fresh warehouse does, keeps every
// other row, and derives nothing the second time (the version's record
// taken back, as on a ClickHouse migration stopped before recording it).
func TestMigrateDerivesMetaDevicePlatform(t *testing.T) {
	ctx := context.Background()
	want := metaDeviceAnswers(t, openTestSource(t))
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("version %d", n), func(t *testing.T) {
			path := warehouseAt(t, n, false)
			db := openLoadDB(t, path+"?access_mode=read_only")
			cols := columnsAt(t, db)
			if countRows(t, db, `SELECT count(*) FROM facts f JOIN accounts a USING (account_id) WHERE a.platform = 'meta_ads'`) == 0 {
				t.Fatal("no Meta rows")
			}
			db.Close()
			sum := checksumOf(t, path, cols)

			release := holdOpen(t, path)
			src, err := Open(ctx, path, Options{NoDemoFill: true})
			if err == nil {
				t.Errorf("read-only open of a warehouse without Meta's device rows answered: %q", metaDeviceAnswers(t, src))
				src.Close()
			} else if !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate --db "+path) ||
				!strings.Contains(err.Error(), "lacks version 4: ") {
				t.Errorf("read-only open: %v", err)
			}
			release()

			res, err := Migrate(ctx, path)
			if err != nil || !slices.Equal(res.Applied, migrationtest.After(n)) {
				t.Fatalf("migrate: %+v, %v; want applied %v", res, err, migrationtest.After(n))
			}
			if got := checksumOf(t, path, cols); got != sum {
				t.Errorf("the migration changed the rows it found:\n%s\nwant\n%s", got, sum)
			}
			src, err = Open(ctx, path, Options{NoDemoFill: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := metaDeviceAnswers(t, src); got != want {
				t.Errorf("Meta by device after the migration:\n%s\nwant (a fresh warehouse)\n%s", got, want)
			}
			src.Close()

			whole := warehouseChecksumAt(t, path)
			db = openLoadDB(t, path)
			if _, err := db.Exec(`DELETE FROM adsmcp_schema WHERE version = 4`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if res, err := Migrate(ctx, path); err != nil || !slices.Equal(res.Applied, []int{4}) {
				t.Fatalf("migrate again: %+v, %v", res, err)
			}
			if got := warehouseChecksumAt(t, path); got != whole {
				t.Errorf("deriving again changed the warehouse:\n%s\nwant\n%s", got, whole)
			}
		})
	}
}

// A warehouse at version 3 that holds Meta's device rows already (a newer
// writer filled it) answers read-only as it is, and its migration to
// version 4 changes no row.
func TestMigrateKeepsMetaDevicePlatform(t *testing.T) {
	ctx := context.Background()
	path := warehouseAt(t, 3, true)
	whole := warehouseChecksumAt(t, path)
	release := holdOpen(t, path)
	src, err := Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatalf("read-only open of a version 3 warehouse with Meta's device rows: %v", err)
	}
	before := metaDeviceAnswers(t, src)
	src.Close()
	release()
	if res, err := Migrate(ctx, path); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	db := openLoadDB(t, path)
	if _, err := db.Exec(`DELETE FROM adsmcp_schema WHERE version = 4`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := warehouseChecksumAt(t, path); got != whole {
		t.Errorf("version 4 changed a warehouse holding Meta's device rows:\n%s\nwant\n%s", got, whole)
	}
	src, err = Open(ctx, path, Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := metaDeviceAnswers(t, src); got != before {
		t.Errorf("answers after version 4 differ:\n%s\nwant\n%s", got, before)
	}
}

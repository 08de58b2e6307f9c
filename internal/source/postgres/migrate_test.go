package postgres_test

import (
	"context"
	"errors"
	"fmt"
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
// with loaded's data (its delivery rows: version 1 has no other sets). It
// returns the schema's DSN and a pool on it.
func legacyWarehouse(t *testing.T, loaded *postgres.Source) (string, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
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
	for table, cols := range columnsOf(t, pool) {
		where := ""
		if table == "facts" {
			where = ` WHERE breakdown = 'delivery'`
		}
		if _, err := pool.Exec(ctx, `INSERT INTO `+table+` (`+cols+`) SELECT `+cols+` FROM `+pgx.Identifier{from, table}.Sanitize()+where); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	return dsn, pool
}

// recordVersion1 records version 1 in a legacyWarehouse, as the first
// adsmcp with schema versions left it.
func recordVersion1(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	for _, st := range []string{migration.Postgres.CreateVersionTable, `INSERT INTO adsmcp_schema (version) VALUES (1)`} {
		if _, err := pool.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// columnsOf are the columns of each table of version 1 (v1Tables) in the
// pool's schema, quoted and comma-separated in their order.
func columnsOf(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range v1Tables {
		var cols string
		if err := pool.QueryRow(context.Background(), `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position)
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table).Scan(&cols); err != nil {
			t.Fatalf("columns of %s: %v", table, err)
		}
		out[table] = cols
	}
	return out
}

// checksumOf sums, per table, the rows' values in the columns cols names
// (columnsOf the layout before a migration): what a migration must leave as
// it found, whatever columns it adds. Rows are taken in their values' order.
// Meta's device_platform rows, which version 4 derives where they are
// missing, are left out (TestMigrateDerivesMetaDevicePlatform checks them).
func checksumOf(t *testing.T, pool *pgxpool.Pool, cols map[string]string) string {
	t.Helper()
	var parts []string
	for _, table := range v1Tables {
		var sum string
		where := ""
		if table == "facts" && slices.Contains(strings.Split(columnsOf(t, pool)["facts"], ", "), "breakdown") {
			where = ` WHERE breakdown <> 'device_platform'`
		}
		q := `SELECT count(*)::text || ' ' || md5(coalesce(string_agg(r, E'\n' ORDER BY r), '')) FROM (SELECT (ROW(` + cols[table] + `))::text AS r FROM ` + table + where + `) s`
		if err := pool.QueryRow(context.Background(), q).Scan(&sum); err != nil {
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
func checkVersion2Defaults(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for _, c := range []struct {
		what, query string
		zero        bool
	}{
		{"fact rows", `SELECT count(*) FROM facts`, false},
		{"old fact rows not plain delivery rows", `SELECT count(*) FROM facts WHERE breakdown <> 'device_platform' AND (breakdown IS DISTINCT FROM 'delivery'
			OR age IS NOT NULL OR gender IS NOT NULL OR placement IS NOT NULL OR conversion_action IS NOT NULL)`, true},
		{"accounts", `SELECT count(*) FROM accounts`, false},
		{"old accounts with an attribution window or counted actions", `SELECT count(*) FROM accounts
			WHERE attribution_window IS NOT NULL OR conversion_actions IS NOT NULL`, true},
	} {
		var n int
		if err := pool.QueryRow(context.Background(), c.query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if c.zero != (n == 0) {
			t.Errorf("%d %s", n, c.what)
		}
	}
}

// keepVersion1Data reduces the warehouse to what a version 1 layout can
// hold, and what a migration derives from it: its delivery rows and Meta's
// device_platform rows (version 4 sums them from the delivery rows),
// accounts saying no attribution window or counted actions. A new warehouse
// so reduced is what a migrated one must answer like, the demo's other sets
// and windows being data the old one never had.
func keepVersion1Data(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for _, st := range []string{`DELETE FROM facts WHERE breakdown NOT IN ('delivery', 'device_platform')`,
		`UPDATE accounts SET attribution_window = NULL, conversion_actions = NULL`} {
		if _, err := pool.Exec(context.Background(), st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// migratedToLatest is what Migrate reports for a warehouse at version 1.
var migratedToLatest = migrationtest.MigratedFrom(1)

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

// A version 1 warehouse, with its version recorded or not, cannot be read
// by the server (which never writes) until adsmcp migrate applies version 2:
// once (version 1's statements again for one without a record: they only
// create what is missing), both recorded, every old row kept as a delivery
// row, and every answer that of a new warehouse holding the same data.
func TestLegacyWarehouseIsMigrated(t *testing.T) {
	ctx := context.Background()
	loaded := openLoaded(t)
	keepVersion1Data(t, loaded.Pool())
	// Only version 2 is under test: the catalog's newer fact columns
	// (video_views_p100) are the case of TestDeclaredFactColumnIsAdded.
	migrationtest.Declare(t)
	for _, c := range []struct {
		name     string
		recorded []string
		applied  []int
		// compare runs the conformance suite against the fresh warehouse
		// (a minute): once is enough, the two differ only in version 1's
		// statements, which create nothing here.
		compare bool
	}{
		{"unversioned", nil, migrationtest.After(0), true},
		{"version 1 recorded", []string{"1"}, migrationtest.After(1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, pool := legacyWarehouse(t, loaded)
			if c.recorded != nil {
				recordVersion1(t, pool)
			}
			cols := columnsOf(t, pool)
			sum := checksumOf(t, pool, cols)
			if _, err := openSource(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
				!strings.Contains(err.Error(), "lacks version 2: ") {
				t.Errorf("open the version 1 layout: %v", err)
			}
			if got := recorded(t, pool); !slices.Equal(got, c.recorded) {
				t.Fatalf("opening left recorded %v, want %v", got, c.recorded)
			}
			res, err := postgres.Migrate(ctx, pool)
			if err != nil || !slices.Equal(res.Applied, c.applied) || len(res.Added) != 0 || res.String() != migratedToLatest {
				t.Fatalf("migrate: applied %v, added %v, %q, %v; want applied %v and %q", res.Applied, res.Added, res, err, c.applied, migratedToLatest)
			}
			if got := recorded(t, pool); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
			}
			if got := checksumOf(t, pool, cols); got != sum {
				t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
			}
			checkVersion2Defaults(t, pool)
			migrated, err := openSource(t, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if c.compare {
				sourcetest.RunWithout(t, loaded, migrated, duckdbtest.Now(), migrationtest.FieldsAfterVersion1()...)
			} else if _, err := migrated.Accounts(ctx); err != nil {
				t.Errorf("accounts after the migration: %v", err)
			}
			if res, err := postgres.Migrate(ctx, pool); err != nil || res.Changed() {
				t.Errorf("second migrate: %+v, %v", res, err)
			}
			if got := recorded(t, pool); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded after a second migrate %v, want %v", got, migrationtest.Recorded())
			}
		})
	}
}

// New warehouses (adsmcp demo --target, import --target) are created at the
// latest version, recorded.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	if got := recorded(t, openLoaded(t).Pool()); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
	}
}

// A declared fact column a version 1 warehouse lacks too: the server refuses
// to open it, naming adsmcp migrate; the migration applies version 2, then
// adds the column, NULL in the rows there, once.
func TestDeclaredFactColumnIsAdded(t *testing.T) {
	ctx := context.Background()
	dsn, pool := legacyWarehouse(t, openLoaded(t))
	migrationtest.Declare(t, migrationtest.Purchases)
	if _, err := openSource(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
		!strings.Contains(err.Error(), "lacks version 2: ") || !strings.Contains(err.Error(), "facts columns purchases") {
		t.Errorf("open lacking version 2 and a declared column: %v", err)
	}
	res, err := postgres.Migrate(ctx, pool)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) || !slices.Equal(res.Applied, migrationtest.After(0)) {
		t.Fatalf("migrate: applied %v, added %v, %v; want applied %v, added [purchases]", res.Applied, res.Added, err, migrationtest.After(0))
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM facts WHERE purchases IS NOT NULL`).Scan(&n); err != nil || n != 0 {
		t.Errorf("old rows with purchases: %d, %v", n, err)
	}
	// The final step runs after the versions: the declared column follows
	// version 2's.
	var cols string
	if err := pool.QueryRow(ctx, `SELECT string_agg(column_name::text, ' ' ORDER BY ordinal_position) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'facts' AND column_name IN ('conversion_action', 'purchases')`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != "conversion_action purchases" {
		t.Errorf("facts columns in the order %q, want version 2's conversion_action before the declared purchases", cols)
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

// factsChecksum is every row of facts, in its values' order.
func factsChecksum(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var sum string
	if err := pool.QueryRow(context.Background(), `SELECT count(*)::text || ' ' || md5(coalesce(string_agg(f::text, E'\n' ORDER BY f::text), '')) FROM facts f`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// setBack takes back the versions after n, and with devices false Meta's
// device_platform rows: a warehouse written before they were a set of their
// own holds Meta's delivery rows only.
func setBack(t *testing.T, pool *pgxpool.Pool, n int, devices bool) {
	t.Helper()
	st := fmt.Sprintf(`DELETE FROM adsmcp_schema WHERE version > %d`, n)
	if !devices {
		st += `; DELETE FROM facts WHERE breakdown = 'device_platform'`
	}
	if _, err := pool.Exec(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}

// A warehouse at version 3 holding Meta's delivery rows and no
// device_platform row would answer every Meta query by device with no row:
// the server refuses to open it, naming adsmcp migrate, which derives the
// rows from the delivery rows so that it answers by device as the fresh
// warehouse does; deriving again (the version's record taken back) writes
// nothing. A version 3 warehouse that holds the rows opens as it is, and
// version 4 leaves it as it was.
func TestMigrateDerivesMetaDevicePlatform(t *testing.T) {
	ctx := context.Background()
	fresh := openLoaded(t)
	pool := openLoaded(t).Pool()
	setBack(t, pool, 3, false)
	dsn := pool.Config().ConnString()
	if _, err := openSource(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate --target") ||
		!strings.Contains(err.Error(), "lacks version 4: ") {
		t.Errorf("open a version 3 warehouse without Meta's device rows: %v", err)
	}
	if res, err := postgres.Migrate(ctx, pool); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	migrated, err := openSource(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.RunOnly(t, fresh, migrated, duckdbtest.Now(), "device", "publisher_platform")
	whole := factsChecksum(t, pool)
	setBack(t, pool, 3, true)
	if res, err := postgres.Migrate(ctx, pool); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate again: %+v, %v", res, err)
	}
	if got := factsChecksum(t, pool); got != whole {
		t.Errorf("deriving again changed facts: %s, want %s", got, whole)
	}

	pool = fresh.Pool()
	whole = factsChecksum(t, pool)
	setBack(t, pool, 3, true)
	if _, err := openSource(t, pool.Config().ConnString()); err != nil {
		t.Errorf("open a version 3 warehouse with Meta's device rows: %v", err)
	}
	if res, err := postgres.Migrate(ctx, pool); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate the warehouse with Meta's device rows: %+v, %v", res, err)
	}
	if got := factsChecksum(t, pool); got != whole {
		t.Errorf("version 4 changed a warehouse holding Meta's device rows: %s, want %s", got, whole)
	}
}

package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	ch "github.com/ClickHouse/clickhouse-go/v2"

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
// with from's data (its delivery rows: version 1 has no other sets).
func legacyWarehouse(t *testing.T, from *httpClient) (string, *httpClient) {
	t.Helper()
	dsn := chtest.FreshDatabase(t)
	c, err := newHTTPClient(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range statements(Schema) {
		mustDo(t, c, st)
	}
	for table, cols := range columnsOf(t, c) {
		where := ""
		if table == "facts" {
			where = " WHERE breakdown = 'delivery'"
		}
		mustDo(t, c, "INSERT INTO "+table+" ("+strings.Join(cols, ", ")+") SELECT "+strings.Join(cols, ", ")+" FROM "+from.e.database+"."+table+where)
	}
	return dsn, c
}

// recordVersion1 records version 1 in a legacyWarehouse, as the first
// adsmcp with schema versions left it.
func recordVersion1(t *testing.T, c *httpClient) {
	t.Helper()
	mustDo(t, c, migration.ClickHouse.CreateVersionTable)
	mustDo(t, c, "INSERT INTO adsmcp_schema (version) VALUES (1)")
}

// columnsOf are the columns of each of the warehouse's tables in c's
// database, in their order.
func columnsOf(t *testing.T, c *httpClient) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range tables {
		out[table] = strings.Fields(mustDo(t, c, "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = "+literal(table)))
	}
	return out
}

// checksumOf sums, per table, a hash of each row's values in the columns
// cols names (columnsOf the layout before a migration): what a migration
// must leave as it found, whatever columns it adds. A sum, so the rows'
// order does not count; with the count of rows. Meta's device_platform
// rows, which version 4 derives where they are missing, are left out
// (TestMigrateDerivesMetaDevicePlatform checks them).
func checksumOf(t *testing.T, c *httpClient, cols map[string][]string) string {
	t.Helper()
	var parts []string
	for _, table := range tables {
		where := ""
		if table == "facts" && slices.Contains(columnsOf(t, c)["facts"], "breakdown") {
			where = " WHERE breakdown != 'device_platform'"
		}
		parts = append(parts, table+"="+rowsChecksum(t, c, table+where, cols[table]))
	}
	return strings.Join(parts, " ")
}

// rowsChecksum is the count of from's rows and the sum of a hash of each
// one's values in cols.
func rowsChecksum(t *testing.T, c *httpClient, from string, cols []string) string {
	t.Helper()
	var args []string
	for _, col := range cols {
		args = append(args, "toString(isNull("+col+"))", "ifNull(toString("+col+"), '')")
	}
	return strings.TrimSpace(mustDo(t, c, "SELECT concat(toString(count()), ' ', toString(sum(cityHash64("+strings.Join(args, ", ")+")))) FROM "+from))
}

// version2Columns lists the columns version 2 adds, with their types and
// defaults: a migrated warehouse must hold them as a new one does.
const version2Columns = "SELECT concat(table, ' ', name, ' ', type, ' ', default_kind, ' ', default_expression) FROM system.columns " +
	"WHERE database = currentDatabase() AND ((table = 'facts' AND name IN ('breakdown', 'age', 'gender', 'placement', 'conversion_action')) " +
	"OR (table = 'accounts' AND name IN ('attribution_window', 'conversion_actions'))) ORDER BY table, name"

// checkVersion2Defaults: every row a warehouse held before version 2 is a
// delivery fact row without the other sets' dimensions, its accounts say no
// attribution window or counted actions (the old layout never said), and
// version 2's columns are those of a new warehouse (fresh). The
// device_platform rows version 4 derives from them are not among them.
func checkVersion2Defaults(t *testing.T, c, fresh *httpClient) {
	t.Helper()
	if got, want := mustDo(t, c, version2Columns), mustDo(t, fresh, version2Columns); got != want {
		t.Errorf("version 2's columns:\n%s\nwant, as in a new warehouse:\n%s", got, want)
	}
	for _, q := range []struct {
		what, query string
		zero        bool
	}{
		{"fact rows", "SELECT count() FROM facts", false},
		{"old fact rows not plain delivery rows", "SELECT count() FROM facts WHERE breakdown != 'device_platform' AND (breakdown != 'delivery' " +
			"OR isNotNull(age) OR isNotNull(gender) OR isNotNull(placement) OR isNotNull(conversion_action))", true},
		{"accounts", "SELECT count() FROM accounts", false},
		{"old accounts with an attribution window or counted actions", "SELECT count() FROM accounts " +
			"WHERE isNotNull(attribution_window) OR isNotNull(conversion_actions)", true},
	} {
		n := strings.TrimSpace(mustDo(t, c, q.query))
		if q.zero != (n == "0") {
			t.Errorf("%s %s", n, q.what)
		}
	}
}

// version1Reference is a new warehouse (the latest layout) holding what a
// version 1 layout can hold of fresh's data, and what a migration derives
// from it: its delivery rows and Meta's device_platform rows (version 4
// sums them from the delivery rows), accounts saying no attribution window
// or counted actions. It is what a migrated warehouse must answer like, the
// demo's other sets and windows being data the old one never had.
func version1Reference(t *testing.T, fresh *httpClient) *Source {
	t.Helper()
	dsn := chtest.FreshDatabase(t)
	c, err := newHTTPClient(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := ensureSchema(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for table, cols := range columnsOf(t, c) {
		cols = slices.DeleteFunc(cols, func(col string) bool {
			return table == "accounts" && (col == "attribution_window" || col == "conversion_actions")
		})
		where := ""
		if table == "facts" {
			where = " WHERE breakdown IN ('delivery', 'device_platform')"
		}
		mustDo(t, c, "INSERT INTO "+table+" ("+strings.Join(cols, ", ")+") SELECT "+strings.Join(cols, ", ")+" FROM "+fresh.e.database+"."+table+where)
	}
	src, err := openForTest(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// migratedToLatest is what Migrate reports for a warehouse at version 1.
var migratedToLatest = migrationtest.MigratedFrom(1)

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

// A version 1 warehouse, with its version recorded or not, or with its
// migration to version 2 interrupted halfway (ClickHouse has no
// transactions: some of version 2's columns added, the version not
// recorded), cannot be read by the server (reads never write) until adsmcp
// migrate applies version 2: once (version 1's statements again for one
// without a record: they only create what is missing), both recorded, every
// old row kept as a delivery row, and every answer that of a new warehouse
// holding the same data.
func TestLegacyWarehouseIsMigrated(t *testing.T) {
	ctx := context.Background()
	_, fresh := loadedForTest(t)
	reference := version1Reference(t, fresh)
	// Only version 2 is under test: the catalog's newer fact columns
	// (video_views_p100) are the case of TestDeclaredFactColumnIsAdded.
	migrationtest.Declare(t)
	for _, c := range []struct {
		name string
		// prepare takes the legacy warehouse to the case's state.
		prepare  func(*testing.T, *httpClient)
		recorded []string
		applied  []int
		// compare runs the conformance suite against the fresh warehouse:
		// once is enough, the cases differ only in the statements that ran
		// before, which the others check leave the same layout.
		compare bool
	}{
		{"unversioned", func(*testing.T, *httpClient) {}, nil, migrationtest.After(0), true},
		{"version 1 recorded", recordVersion1, []string{"1"}, migrationtest.After(1), false},
		{"interrupted in version 2", func(t *testing.T, c *httpClient) {
			recordVersion1(t, c)
			// The migration stopped after three of version 2's statements,
			// one of them on accounts.
			for _, st := range []string{version2[0], version2[1], version2[5]} {
				if err := (httpExecutor{c}).Exec(ctx, st); err != nil {
					t.Fatalf("%s: %v", st, err)
				}
			}
		}, []string{"1"}, migrationtest.After(1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, wh := legacyWarehouse(t, fresh)
			cols := columnsOf(t, wh)
			sum := checksumOf(t, wh, cols)
			c.prepare(t, wh)
			if _, err := openForTest(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
				!strings.Contains(err.Error(), "lacks version 2: ") {
				t.Errorf("open the version 1 layout: %v", err)
			}
			if got := recordedVersions(t, wh); !slices.Equal(got, c.recorded) {
				t.Fatalf("opening left recorded %v, want %v", got, c.recorded)
			}
			res, err := Migrate(ctx, dsn)
			if err != nil || !slices.Equal(res.Applied, c.applied) || len(res.Added) != 0 || res.String() != migratedToLatest {
				t.Fatalf("migrate: applied %v, added %v, %q, %v; want applied %v and %q", res.Applied, res.Added, res, err, c.applied, migratedToLatest)
			}
			if got := recordedVersions(t, wh); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
			}
			if got := checksumOf(t, wh, cols); got != sum {
				t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
			}
			checkVersion2Defaults(t, wh, fresh)
			migrated, err := openForTest(t, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if c.compare {
				sourcetest.RunWithout(t, reference, migrated, duckdbtest.Now(), migrationtest.FieldsAfterVersion1()...)
			} else if _, err := migrated.Accounts(ctx); err != nil {
				t.Errorf("accounts after the migration: %v", err)
			}
			if res, err := Migrate(ctx, dsn); err != nil || res.Changed() {
				t.Errorf("second migrate: %+v, %v", res, err)
			}
			if got := recordedVersions(t, wh); !slices.Equal(got, migrationtest.Recorded()) {
				t.Errorf("recorded after a second migrate %v, want %v", got, migrationtest.Recorded())
			}
		})
	}
}

// New warehouses are created at the latest version, recorded; Drop drops
// the version with the tables.
func TestNewWarehouseIsAtTheLatestVersion(t *testing.T) {
	dsn, c := loadedForTest(t)
	if got := recordedVersions(t, c); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
	}
	if err := Drop(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	if n := strings.TrimSpace(mustDo(t, c, "SELECT count() FROM system.tables WHERE database = currentDatabase()")); n != "0" {
		t.Errorf("%s tables after Drop", n)
	}
}

// A declared fact column a version 1 warehouse lacks too: the server refuses
// to open it, naming adsmcp migrate; the migration applies version 2, then
// adds the column, NULL in the rows there, once.
func TestDeclaredFactColumnIsAdded(t *testing.T) {
	ctx := context.Background()
	_, from := loadedForTest(t)
	dsn, c := legacyWarehouse(t, from)
	migrationtest.Declare(t, migrationtest.Purchases)
	if _, err := openForTest(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate") ||
		!strings.Contains(err.Error(), "lacks version 2: ") || !strings.Contains(err.Error(), "facts columns purchases") {
		t.Errorf("open lacking version 2 and a declared column: %v", err)
	}
	res, err := Migrate(ctx, dsn)
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) || !slices.Equal(res.Applied, migrationtest.After(0)) {
		t.Fatalf("migrate: applied %v, added %v, %v; want applied %v, added [purchases]", res.Applied, res.Added, err, migrationtest.After(0))
	}
	if n := strings.TrimSpace(mustDo(t, c, "SELECT count() FROM facts WHERE purchases IS NOT NULL")); n != "0" {
		t.Errorf("%s old rows with purchases", n)
	}
	// The final step runs after the versions: the declared column follows
	// version 2's.
	if got := strings.Fields(mustDo(t, c, "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'facts' "+
		"AND name IN ('conversion_action', 'purchases')")); !slices.Equal(got, []string{"conversion_action", "purchases"}) {
		t.Errorf("facts columns in the order %v, want version 2's conversion_action before the declared purchases", got)
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

// factsChecksum is every row of facts (a sum of their hashes, with their
// count).
func factsChecksum(t *testing.T, c *httpClient) string {
	t.Helper()
	return rowsChecksum(t, c, "facts", columnsOf(t, c)["facts"])
}

// setBack takes back the versions after n, and with devices false Meta's
// device_platform rows (a warehouse written before they were a set of their
// own holds Meta's delivery rows only), waiting for the mutations.
func setBack(t *testing.T, c *httpClient, n int, devices bool) {
	t.Helper()
	mustDo(t, c, fmt.Sprintf("ALTER TABLE adsmcp_schema DELETE WHERE version > %d", n))
	if !devices {
		mustDo(t, c, "ALTER TABLE facts DELETE WHERE breakdown = 'device_platform'")
	}
	s := &importStore{c: c, db: ch.OpenDB(c.e.native)}
	defer s.db.Close()
	if err := s.waitMutations(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A warehouse at version 3 holding Meta's delivery rows and no
// device_platform row would answer every Meta query by device with no row:
// the server refuses to open it, naming adsmcp migrate, which derives the
// rows from the delivery rows so that it answers by device as the fresh
// warehouse does; deriving again (the version's record taken back, as after
// a migration stopped before recording it) writes nothing. A version 3
// warehouse that holds the rows opens as it is, and version 4 leaves it as
// it was.
func TestMigrateDerivesMetaDevicePlatform(t *testing.T) {
	ctx := context.Background()
	freshDSN, fresh := loadedForTest(t)
	dsn, c := loadedForTest(t)
	setBack(t, c, 3, false)
	if _, err := openForTest(t, dsn); !errors.Is(err, migration.ErrBehind) || !strings.Contains(err.Error(), "adsmcp migrate --target") ||
		!strings.Contains(err.Error(), "lacks version 4: ") {
		t.Errorf("open a version 3 warehouse without Meta's device rows: %v", err)
	}
	if res, err := Migrate(ctx, dsn); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate: %+v, %v", res, err)
	}
	migrated, err := openForTest(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	reference, err := openForTest(t, freshDSN)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.RunOnly(t, reference, migrated, duckdbtest.Now(), "device", "publisher_platform")
	whole := factsChecksum(t, c)
	setBack(t, c, 3, true)
	if res, err := Migrate(ctx, dsn); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate again: %+v, %v", res, err)
	}
	if got := factsChecksum(t, c); got != whole {
		t.Errorf("deriving again changed facts: %s, want %s", got, whole)
	}

	whole = factsChecksum(t, fresh)
	setBack(t, fresh, 3, true)
	if _, err := openForTest(t, freshDSN); err != nil {
		t.Errorf("open a version 3 warehouse with Meta's device rows: %v", err)
	}
	if res, err := Migrate(ctx, freshDSN); err != nil || !slices.Equal(res.Applied, []int{4}) {
		t.Fatalf("migrate the warehouse with Meta's device rows: %+v, %v", res, err)
	}
	if got := factsChecksum(t, fresh); got != whole {
		t.Errorf("version 4 changed a warehouse holding Meta's device rows: %s, want %s", got, whole)
	}
}

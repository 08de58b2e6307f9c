package migration

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	_ "github.com/duckdb/duckdb-go/v2"
)

// TestMain runs the runner's tests on a list of one version: they test its
// rules on a one-table warehouse (testSchema), not the real layouts, which
// every warehouse's migrate_test checks from the previous layout.
func TestMain(m *testing.M) {
	Versions = Versions[:1]
	os.Exit(m.Run())
}

// testSchema is a warehouse of one table, in DuckDB, at version 1 of the
// real list (the facts table).
var testSchema = Schema{Dialect: DuckDB, Versions: map[int][]string{
	1: {`CREATE TABLE IF NOT EXISTS facts (date DATE NOT NULL, spend_micros BIGINT NOT NULL)`},
}}

var purchases = Column{Name: "purchases", Type: map[string]string{"duckdb": "BIGINT", "postgres": "bigint", "clickhouse": "Int64"}, Nullable: true}

func openMemory(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one in-memory database, whatever the pool does
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, statements ...string) {
	t.Helper()
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func inspect(t *testing.T, db *sql.DB, s Schema, declared ...Column) State {
	t.Helper()
	st, err := Inspect(context.Background(), SQL(db), s, declared)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func migrate(t *testing.T, db *sql.DB, s Schema, declared ...Column) Result {
	t.Helper()
	res, err := Migrate(context.Background(), SQL(db), s, declared)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func recorded(t *testing.T, db *sql.DB) []string {
	t.Helper()
	out, err := SQL(db).Strings(context.Background(), DuckDB.RecordedVersions+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withVersions replaces the list of versions for one test.
func withVersions(t *testing.T, vs ...Version) {
	t.Helper()
	old := Versions
	Versions = vs
	t.Cleanup(func() { Versions = old })
}

func TestEmptyWarehouseIsCreatedAtTheLatestVersion(t *testing.T) {
	db := openMemory(t)
	if st := inspect(t, db, testSchema); !st.Empty() || st.Readable() != nil {
		t.Fatalf("empty: %+v, readable %v", st, st.Readable())
	}
	res := migrate(t, db, testSchema)
	if !slices.Equal(res.Applied, []int{1}) || !strings.HasPrefix(res.String(), "created the tables at schema version 1") {
		t.Errorf("result %+v: %s", res, res)
	}
	if got := recorded(t, db); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
	if st := inspect(t, db, testSchema); !st.Current() {
		t.Errorf("after: %+v", st)
	}
	if res := migrate(t, db, testSchema); res.Changed() || res.String() != "schema version 1, up to date; nothing to do" {
		t.Errorf("second run: %+v: %s", res, res)
	}
}

// Every warehouse written before versions existed has a facts table and no
// version: it is version 1, readable as it is, and gets the version recorded.
func TestUnversionedWarehouseIsVersion1(t *testing.T) {
	db := openMemory(t)
	mustExec(t, db, testSchema.Versions[1][0], `INSERT INTO facts VALUES ('2026-03-01', 1500000)`)
	st := inspect(t, db, testSchema)
	if st.Version != 1 || st.Recorded || st.Current() || st.Behind() || st.Readable() != nil {
		t.Fatalf("unversioned: %+v, readable %v", st, st.Readable())
	}
	res := migrate(t, db, testSchema)
	if !slices.Equal(res.Applied, []int{1}) || res.String() != "schema version 1, recognised by its tables and now recorded" {
		t.Errorf("result %+v: %s", res, res)
	}
	if got := recorded(t, db); !slices.Equal(got, []string{"1"}) {
		t.Errorf("recorded %v", got)
	}
	var spend int64
	if err := db.QueryRow(`SELECT sum(spend_micros) FROM facts`).Scan(&spend); err != nil || spend != 1500000 {
		t.Errorf("data after the migration: %d, %v", spend, err)
	}
}

// The final step adds a declared column facts lacks, NULL (or its default)
// in the rows already there, and only once.
func TestMissingFactColumnsAreAdded(t *testing.T) {
	db := openMemory(t)
	migrate(t, db, testSchema)
	mustExec(t, db, `INSERT INTO facts VALUES ('2026-03-01', 1500000)`)
	views := Column{Name: "video_views_p100", Type: map[string]string{"duckdb": "BIGINT"}, Default: "0"}

	st := inspect(t, db, testSchema, purchases, views)
	if len(st.Missing) != 2 || !st.Behind() || st.Current() {
		t.Fatalf("before: %+v", st)
	}
	if err := st.Readable(); !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "facts columns purchases, video_views_p100") ||
		!strings.Contains(err.Error(), "adsmcp migrate") {
		t.Errorf("read-only verdict: %v", err)
	}
	res := migrate(t, db, testSchema, purchases, views)
	if !slices.Equal(res.Added, []string{"purchases", "video_views_p100"}) || len(res.Applied) != 0 ||
		res.String() != "schema version 1, now 1; added facts columns purchases, video_views_p100" {
		t.Errorf("result %+v: %s", res, res)
	}
	var p sql.NullInt64
	var v int64
	if err := db.QueryRow(`SELECT purchases, video_views_p100 FROM facts`).Scan(&p, &v); err != nil || p.Valid || v != 0 {
		t.Errorf("existing row: purchases %v, video_views_p100 %d, %v", p, v, err)
	}
	if st := inspect(t, db, testSchema, purchases, views); !st.Current() {
		t.Errorf("after: %+v", st)
	}
	if res := migrate(t, db, testSchema, purchases, views); res.Changed() {
		t.Errorf("second run changed: %+v", res)
	}
}

// A new warehouse gets the declared columns too, after the versions.
func TestNewWarehouseGetsTheDeclaredColumns(t *testing.T) {
	db := openMemory(t)
	res := migrate(t, db, testSchema, purchases)
	if !slices.Equal(res.Added, []string{"purchases"}) {
		t.Errorf("result %+v", res)
	}
	mustExec(t, db, `INSERT INTO facts (date, spend_micros, purchases) VALUES ('2026-03-01', 1, 2)`)
}

func TestNewerWarehouseIsRefused(t *testing.T) {
	db := openMemory(t)
	migrate(t, db, testSchema)
	mustExec(t, db, `INSERT INTO adsmcp_schema (version) VALUES (7)`)
	st := inspect(t, db, testSchema, purchases)
	if !st.Newer() || st.Version != 7 {
		t.Fatalf("state %+v", st)
	}
	want := "this warehouse was written by a newer adsmcp (schema 7); upgrade adsmcp"
	if err := st.Readable(); !errors.Is(err, ErrNewer) || !strings.Contains(err.Error(), want) {
		t.Errorf("read-only verdict: %v", err)
	}
	if _, err := Migrate(context.Background(), SQL(db), testSchema, []Column{purchases}); !errors.Is(err, ErrNewer) {
		t.Errorf("migrate: %v", err)
	}
	if st := inspect(t, db, testSchema, purchases); len(st.Missing) != 1 {
		t.Errorf("the refused migration added a column: %+v", st)
	}
}

// A version table left without the warehouse's tables (dropped by hand) is
// an empty warehouse: it is created again.
func TestDroppedWarehouseIsCreatedAgain(t *testing.T) {
	db := openMemory(t)
	migrate(t, db, testSchema)
	mustExec(t, db, `DROP TABLE facts`)
	if st := inspect(t, db, testSchema); !st.Empty() {
		t.Fatalf("state %+v", st)
	}
	migrate(t, db, testSchema)
	if st := inspect(t, db, testSchema); !st.Current() {
		t.Errorf("state %+v", st)
	}
}

// Versions after 1: applied once and in order; a read-only open of the older
// layout answers when reads do not need the newer versions, and is refused,
// naming adsmcp migrate, when they do.
func TestLaterVersions(t *testing.T) {
	s := Schema{Dialect: DuckDB, Versions: map[int][]string{
		1: testSchema.Versions[1],
		2: {`CREATE INDEX facts_date ON facts (date)`},
		3: {`ALTER TABLE facts ADD COLUMN currency VARCHAR`},
	}}
	db := openMemory(t)
	mustExec(t, db, testSchema.Versions[1][0]) // an unversioned warehouse
	withVersions(t, Versions[0],
		Version{Number: 2, Summary: "an index on facts' dates", NeededByReads: false},
		Version{Number: 3, Summary: "facts' currency", NeededByReads: true})

	err := inspect(t, db, s).Readable()
	if !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "version 3: facts' currency") || strings.Contains(err.Error(), "version 2") {
		t.Errorf("read-only verdict at version 1: %v", err)
	}
	res := migrate(t, db, s)
	if !slices.Equal(res.Applied, []int{1, 2, 3}) ||
		res.String() != "schema version 1, now 3; applied version 2: an index on facts' dates; applied version 3: facts' currency" {
		t.Errorf("result %+v: %s", res, res)
	}
	if got := recorded(t, db); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("recorded %v", got)
	}
	if res := migrate(t, db, s); res.Changed() {
		t.Errorf("second run: %+v", res) // version 2 twice would fail: the index exists
	}

	// At version 2, reads need only version 3... and at 3 with 3 not needed, nothing.
	withVersions(t, Versions[0], Versions[1], Version{Number: 3, Summary: "x", NeededByReads: false})
	mustExec(t, db, `DELETE FROM adsmcp_schema WHERE version = 3`)
	if st := inspect(t, db, s); st.Version != 2 || !st.Behind() || st.Readable() != nil {
		t.Errorf("version 2, when reads need nothing newer: %+v, %v", st, st.Readable())
	}
}

func TestSchemaMustGiveEveryVersion(t *testing.T) {
	db := openMemory(t)
	for name, s := range map[string]Schema{
		"none":  {Dialect: DuckDB},
		"extra": {Dialect: DuckDB, Versions: map[int][]string{1: {"SELECT 1"}, 2: {"SELECT 2"}}},
	} {
		if _, err := Inspect(context.Background(), SQL(db), s, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAddColumnStatements(t *testing.T) {
	money := Column{Name: "purchase_value_micros", Type: map[string]string{"duckdb": "BIGINT", "postgres": "bigint", "clickhouse": "Int64"}, Default: "0"}
	for _, c := range []struct {
		d    Dialect
		col  Column
		want string
	}{
		{DuckDB, purchases, "ALTER TABLE facts ADD COLUMN purchases BIGINT"},
		{Postgres, purchases, "ALTER TABLE facts ADD COLUMN purchases bigint"},
		{ClickHouse, purchases, "ALTER TABLE facts ADD COLUMN purchases Nullable(Int64)"},
		{DuckDB, money, "ALTER TABLE facts ADD COLUMN purchase_value_micros BIGINT DEFAULT 0"},
		{Postgres, money, "ALTER TABLE facts ADD COLUMN purchase_value_micros bigint DEFAULT 0 NOT NULL"},
		{ClickHouse, money, "ALTER TABLE facts ADD COLUMN purchase_value_micros Int64 DEFAULT 0"},
	} {
		got, err := c.d.addColumn(c.col)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q, %v; want %q", c.d.Name, c.col.Name, got, err, c.want)
		}
	}
	for name, col := range map[string]Column{
		"bad name":   {Name: "purchases; DROP TABLE facts", Type: purchases.Type, Nullable: true},
		"no type":    {Name: "purchases", Type: map[string]string{"postgres": "bigint"}, Nullable: true},
		"no default": {Name: "purchases", Type: purchases.Type},
	} {
		if _, err := DuckDB.addColumn(col); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestUpgradeRefusesAnEmptyWarehouse(t *testing.T) {
	db := openMemory(t)
	if _, err := Upgrade(context.Background(), SQL(db), testSchema, nil); !errors.Is(err, ErrNoWarehouse) {
		t.Fatalf("upgrade of nothing: %v", err)
	}
	if st := inspect(t, db, testSchema); !st.Empty() {
		t.Errorf("it created tables: %+v", st)
	}
	migrate(t, db, testSchema)
	if res, err := Upgrade(context.Background(), SQL(db), testSchema, []Column{purchases}); err != nil || !slices.Equal(res.Added, []string{"purchases"}) {
		t.Errorf("upgrade: %+v, %v", res, err)
	}
}

// An import into a current warehouse runs no DDL, even to record a version;
// one into a warehouse lacking a declared column migrates it.
func TestMigrateIfBehind(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	mustExec(t, db, testSchema.Versions[1][0]) // unversioned, current
	res, err := MigrateIfBehind(ctx, SQL(db), testSchema, nil)
	if err != nil || res.Changed() {
		t.Fatalf("current warehouse: %+v, %v", res, err)
	}
	if st := inspect(t, db, testSchema); st.Recorded {
		t.Errorf("it recorded a version: %+v", st)
	}
	res, err = MigrateIfBehind(ctx, SQL(db), testSchema, []Column{purchases})
	if err != nil || !slices.Equal(res.Added, []string{"purchases"}) {
		t.Errorf("behind by a column: %+v, %v", res, err)
	}
	mustExec(t, db, `INSERT INTO adsmcp_schema (version) VALUES (9)`)
	if _, err := MigrateIfBehind(ctx, SQL(db), testSchema, nil); !errors.Is(err, ErrNewer) {
		t.Errorf("newer: %v", err)
	}
}

// The declared columns are the catalog's, each with a type in every dialect:
// a catalog metric whose column a warehouse lacks gets it from the final step.
func TestFactColumnsAreTheCatalogs(t *testing.T) {
	cols := FactColumns()
	want := catalog.FactColumns()
	if len(cols) != len(want) {
		t.Fatalf("declared %d fact columns, the catalog has %d", len(cols), len(want))
	}
	for i, c := range cols {
		if c.Name != want[i].Name || !c.Nullable {
			t.Errorf("column %d: %+v, want %s, nullable", i, c, want[i].Name)
		}
		for _, d := range []Dialect{DuckDB, Postgres, ClickHouse} {
			if _, err := d.addColumn(c); err != nil {
				t.Errorf("%s: %v", d.Name, err)
			}
		}
	}
}

// A version that only derives rows gives no statements; its step runs after
// the final step added the declared columns (which it may fill) and before
// the version is recorded, writes only what is missing, and makes a
// read-only open refuse the older layout only while it would write rows.
func TestDerivedVersion(t *testing.T) {
	const missing = ` FROM facts WHERE NOT EXISTS (SELECT 1 FROM facts WHERE date = DATE '2000-01-01')`
	var seen []string
	withVersions(t, Versions[0], Version{Number: 2, Summary: "a total row", Derived: &Derived{
		Insert: func(_ Dialect, cols []string, measures map[string]bool) string {
			seen = cols
			if !measures["spend_micros"] || !measures["purchases"] || measures["date"] {
				t.Errorf("measures %v", measures)
			}
			return `INSERT INTO facts (date, spend_micros, purchases) SELECT DATE '2000-01-01', SUM(spend_micros), count(*)` + missing + ` HAVING count(*) > 0`
		},
		Missing: func(Dialect) string { return `SELECT 'x'` + missing + ` LIMIT 1` },
	}})
	s := Schema{Dialect: DuckDB, Versions: map[int][]string{1: testSchema.Versions[1]}}
	db := openMemory(t)
	mustExec(t, db, testSchema.Versions[1][0], DuckDB.CreateVersionTable, `INSERT INTO adsmcp_schema (version) VALUES (1)`)
	if st := inspect(t, db, s); len(st.Underived) != 0 || st.Readable() != nil {
		t.Errorf("nothing to derive: %+v, %v", st, st.Readable())
	}
	mustExec(t, db, `INSERT INTO facts VALUES ('2026-03-01', 1500000), ('2026-03-02', 500000)`)
	st := inspect(t, db, s)
	if err := st.Readable(); !slices.Equal(st.Underived, []int{2}) || !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "lacks version 2: a total row") {
		t.Errorf("rows to derive: %+v, %v", st, err)
	}
	res := migrate(t, db, s, purchases)
	if !slices.Equal(res.Applied, []int{2}) || !slices.Equal(res.Added, []string{"purchases"}) || !slices.Contains(seen, "purchases") {
		t.Errorf("migrate: %+v; the step saw columns %v", res, seen)
	}
	total := `SELECT CAST(count(*) AS VARCHAR) || ' ' || CAST(sum(spend_micros) AS VARCHAR) || ' ' || CAST(sum(purchases) AS VARCHAR) FROM facts`
	want := []string{"3 4000000 2"}
	if got, err := SQL(db).Strings(context.Background(), total); err != nil || !slices.Equal(got, want) {
		t.Errorf("facts after the step: %v, %v; want %v", got, err, want)
	}
	if got := recorded(t, db); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("recorded %v", got)
	}
	// Run again (a migration stopped before recording it): nothing written.
	mustExec(t, db, `DELETE FROM adsmcp_schema WHERE version = 2`)
	if res := migrate(t, db, s, purchases); !slices.Equal(res.Applied, []int{2}) {
		t.Errorf("again: %+v", res)
	}
	if got, err := SQL(db).Strings(context.Background(), total); err != nil || !slices.Equal(got, want) {
		t.Errorf("facts after the step ran again: %v, %v; want %v", got, err, want)
	}
}

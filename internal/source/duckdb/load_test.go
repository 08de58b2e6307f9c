package duckdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
)

var loadConfig = demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 42, Days: 120, Scale: 0.05}

var loadTables = []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach"}

func openLoadDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// emitCounts counts what the generator emits, per table.
type emitCounts struct{ n map[string]int64 }

func (s *emitCounts) Dataset(string, string) error { s.n["dataset"]++; return nil }
func (s *emitCounts) Account(ads.Account) error    { s.n["accounts"]++; return nil }
func (s *emitCounts) Campaign(demo.Campaign) error { s.n["campaigns"]++; return nil }
func (s *emitCounts) AdSet(demo.AdSet) error       { s.n["adsets"]++; return nil }
func (s *emitCounts) Ad(demo.Ad) error             { s.n["ads"]++; return nil }
func (s *emitCounts) Fact(*demo.Fact) error        { s.n["facts"]++; return nil }
func (s *emitCounts) Reach(demo.Reach) error       { s.n["reach"]++; return nil }

// warehouseChecksum hashes every table's rows in physical (insertion) order, in SQL.
func warehouseChecksum(t *testing.T, db *sql.DB) string {
	t.Helper()
	var parts []string
	for _, table := range loadTables {
		var sum string
		q := `SELECT md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY rowid), '')) FROM ` + table + ` t`
		if err := db.QueryRow(q).Scan(&sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		parts = append(parts, table+"="+sum)
	}
	return strings.Join(parts, " ")
}

func countRows(t *testing.T, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	want := &emitCounts{n: map[string]int64{}}
	if err := demo.Generate(ctx, loadConfig, want, nil); err != nil {
		t.Fatal(err)
	}
	want.n["dataset"]++ // the complete row

	db := openLoadDB(t, "")
	if ok, err := Loaded(ctx, db); ok || err != nil {
		t.Fatalf("Loaded on an empty database = %v, %v", ok, err)
	}
	var progress bytes.Buffer
	if err := Load(ctx, db, loadConfig, &progress); err != nil {
		t.Fatal(err)
	}
	for _, table := range loadTables {
		if got := countRows(t, db, "SELECT count(*) FROM "+table); got != want.n[table] {
			t.Errorf("%s: %d rows, the generator emitted %d", table, got, want.n[table])
		}
	}
	if ok, err := Loaded(ctx, db); !ok || err != nil {
		t.Fatalf("Loaded after Load = %v, %v", ok, err)
	}
	out := progress.String()
	if !strings.HasSuffix(out, "\n") || !strings.Contains(out, "loaded demo data: ") || !strings.Contains(out, " facts") {
		t.Errorf("progress output %q", out)
	}

	// NULLs where the generator means NULL, not empty strings or zeros.
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE campaign_id = '' OR country = '' OR device = ''`); n != 0 {
		t.Errorf("%d facts with empty strings instead of NULL", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE campaign_id IS NULL`); n == 0 {
		t.Error("no fact with a NULL campaign_id")
	}
	if n := countRows(t, db, `SELECT count(*) FROM facts f JOIN accounts a USING (account_id)
		WHERE (a.platform = 'meta_ads') = (f.link_clicks IS NULL)`); n != 0 {
		t.Errorf("%d facts with link_clicks NULL on Meta or set elsewhere", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM campaigns WHERE end_date IS NULL`); n == 0 {
		t.Error("no campaign without an end date (NULL)")
	}
	// Facts are physically the delivery rows, then the other sets' rows; each
	// part in account order, then date order.
	if n := countRows(t, db, `SELECT count(*) FROM (
		SELECT breakdown <> 'delivery' AS b, lag(breakdown <> 'delivery') OVER (ORDER BY rowid) AS pb FROM facts) WHERE pb AND NOT b`); n != 0 {
		t.Errorf("%d delivery facts after another set's", n)
	}
	for _, part := range []string{"breakdown = 'delivery'", "breakdown <> 'delivery'"} {
		if n := countRows(t, db, `SELECT count(*) FROM (
			SELECT account_id, date, lag(account_id) OVER w AS pa, lag(date) OVER w AS pd
			FROM facts WHERE `+part+` WINDOW w AS (ORDER BY rowid)) WHERE pa = account_id AND date < pd`); n != 0 {
			t.Errorf("%s: %d facts out of date order within their account", part, n)
		}
		if n := countRows(t, db, `SELECT count(*) - count(DISTINCT account_id) FROM (
			SELECT account_id, lag(account_id) OVER (ORDER BY rowid) AS pa FROM facts WHERE `+part+`) WHERE pa IS DISTINCT FROM account_id`); n != 0 {
			t.Errorf("%s: an account's facts are split in %d more runs than accounts", part, n)
		}
	}

	// Loading again on top is refused and changes nothing.
	before := warehouseChecksum(t, db)
	if err := Load(ctx, db, loadConfig, nil); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("second Load: %v, want ErrNotEmpty", err)
	}
	if warehouseChecksum(t, db) != before {
		t.Fatal("a refused Load changed the warehouse")
	}
}

// Two independent loads of the same config give byte-identical warehouses; another
// seed does not.
func TestLoadDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var sums []string
	for i, cfg := range []demo.Config{loadConfig, loadConfig, {Anchor: loadConfig.Anchor, Seed: 43, Days: loadConfig.Days, Scale: loadConfig.Scale}} {
		db := openLoadDB(t, filepath.Join(dir, string(rune('a'+i))+".duckdb"))
		if err := Load(ctx, db, cfg, nil); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, warehouseChecksum(t, db))
	}
	if sums[0] != sums[1] {
		t.Fatalf("same config, different warehouses:\n%s\n%s", sums[0], sums[1])
	}
	if sums[0] == sums[2] {
		t.Fatal("different seeds, identical warehouses")
	}
}

// A failed or cancelled load leaves nothing behind.
func TestLoadRollsBack(t *testing.T) {
	db := openLoadDB(t, filepath.Join(t.TempDir(), "w.duckdb"))
	ctx, cancel := context.WithCancel(context.Background())
	var w cancelOnProgress
	w.cancel = cancel
	err := Load(ctx, db, loadConfig, &w)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Load returned %v", err)
	}
	if ok, err := Loaded(context.Background(), db); ok || err != nil {
		t.Fatalf("Loaded after a cancelled load = %v, %v", ok, err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'facts'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a cancelled load left %d facts tables (%v)", n, err)
	}
	if err := Load(context.Background(), db, loadConfig, nil); err != nil {
		t.Fatalf("loading after a cancelled load: %v", err)
	}
}

// cancelOnProgress cancels the load on its first progress line.
type cancelOnProgress struct{ cancel func() }

func (c *cancelOnProgress) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("generating")) {
		c.cancel()
	}
	return len(p), nil
}

// warehouseChecksumAt is warehouseChecksum of the file at path, opened read-only.
func warehouseChecksumAt(t *testing.T, path string) string {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	return warehouseChecksum(t, db)
}

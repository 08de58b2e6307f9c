package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// BenchmarkLoadDemo generates and loads the small test dataset into a fresh
// in-memory warehouse per iteration.
func BenchmarkLoadDemo(b *testing.B) {
	var facts int64
	for b.Loop() {
		db := openLoadDB(b, "")
		if err := Load(context.Background(), db, loadConfig, nil); err != nil {
			b.Fatal(err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM facts`).Scan(&facts); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(facts), "facts/op")
	b.ReportMetric(float64(facts)*float64(b.N)/b.Elapsed().Seconds(), "facts/s")
}

// TestFullDemo generates and loads the full demo dataset (Scale 1, 730 days) into a
// database file and reports rows, seconds and file size. It is slow-ish and writes
// ~100 MB, so it only runs when asked:
//
//	ADSMCP_FULL_DEMO=1 go test -run TestFullDemo -v ./internal/source/duckdb/
//
// ADSMCP_FULL_DEMO_PATH keeps the database at that path (it must not exist) instead
// of a temporary directory.
func TestFullDemo(t *testing.T) {
	if os.Getenv("ADSMCP_FULL_DEMO") == "" {
		skipreport.Skip(t, "set ADSMCP_FULL_DEMO=1 to generate and load the full demo dataset")
	}
	path := os.Getenv("ADSMCP_FULL_DEMO_PATH")
	if path == "" {
		path = filepath.Join(t.TempDir(), "demo.duckdb")
	}
	db := openLoadDB(t, path)
	cfg := demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: demo.DefaultSeed}
	start := time.Now()
	if err := Load(context.Background(), db, cfg, os.Stderr); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	for _, table := range loadTables {
		t.Logf("%-9s %9d rows", table, countRows(t, db, "SELECT count(*) FROM "+table))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated and loaded in %.1fs; %s is %.1f MB", elapsed.Seconds(), path, float64(st.Size())/1e6)

	facts := countRows(t, db, "SELECT count(*) FROM facts")
	if facts < 2_000_000 || facts > 6_000_000 {
		t.Errorf("%d facts, want 2–6M", facts)
	}
	if elapsed > time.Minute {
		t.Errorf("loading took %v, want well under a minute", elapsed)
	}
	// The physical order pays off: one account's last 30 days touch few row groups.
	q := `SELECT sum(spend_micros) FROM facts WHERE account_id = 'act_4409187263550918' AND date >= DATE '2026-02-12'`
	var spend int64
	t0 := time.Now()
	if err := db.QueryRow(q).Scan(&spend); err != nil {
		t.Fatal(err)
	}
	t.Logf("one account, last 30 days: %v", time.Since(t0))
}

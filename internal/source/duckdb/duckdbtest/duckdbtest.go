// Package duckdbtest builds the small, fixed-anchor demo warehouse that the tests
// of several packages read, once per test binary. Its data is deterministic, so
// golden files made from it stay valid.
package duckdbtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// Anchor is the day after the test data ends (the data covers 2025-02-08 … 2026-03-14,
// so it spans a year end).
var Anchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

// Config is the test dataset: 400 days, 6% of the campaigns, seed 42.
var Config = demo.Config{Anchor: Anchor, Seed: 42, Days: 400, Scale: 0.06}

// Now is a clock on the anchor day, for date presets.
func Now() time.Time { return Anchor.Add(9 * time.Hour) }

var (
	once sync.Once
	src  *duckdb.Source
	dir  string
	err  error
)

// Open returns the shared test warehouse, building it on first use.
func Open(tb testing.TB) *duckdb.Source {
	tb.Helper()
	once.Do(func() {
		if dir, err = os.MkdirTemp("", "adsmcp-test-warehouse-"); err != nil {
			return
		}
		src, err = duckdb.Open(context.Background(), filepath.Join(dir, "test.duckdb"), duckdb.Options{Demo: Config})
	})
	if err != nil {
		tb.Fatalf("open the test warehouse: %v", err)
	}
	return src
}

// Main runs a package's tests and removes the warehouse afterwards; call it from
// TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	Cleanup()
	return code
}

// Cleanup closes and removes the warehouse, for a TestMain with more to shut down.
func Cleanup() {
	if src != nil {
		src.Close()
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// Package duckdb is the embedded warehouse: ad data in a DuckDB file, queried with
// parameterized SQL generated from normalized queries. On first use an empty file
// is filled with the deterministic demo dataset, so adsmcp works out of the box.
package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/adrg/xdg"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" database/sql driver

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// DefaultPath is where the warehouse lives unless --db says otherwise:
// $XDG_DATA_HOME/adsmcp/adsmcp.duckdb (~/.local/share/adsmcp/adsmcp.duckdb).
func DefaultPath() string {
	return filepath.Join(xdg.DataHome, "adsmcp", "adsmcp.duckdb")
}

// DefaultSyncedPath is the warehouse `adsmcp sync` writes, and a server that
// syncs reads, unless a file or database is named: next to DefaultPath,
// $XDG_DATA_HOME/adsmcp/synced.duckdb. It is not DefaultPath, which holds
// the demo dataset on first use: the platforms' data is never mixed with it
// (docs/sync.md).
func DefaultSyncedPath() string {
	return filepath.Join(filepath.Dir(DefaultPath()), "synced.duckdb")
}

// Options configure Open.
type Options struct {
	// Demo is the demo dataset written when the file holds no data yet.
	Demo demo.Config
	// Progress receives demo generation progress (nil: silent).
	Progress io.Writer
	// Logger for diagnostics (nil: slog.Default()).
	Logger *slog.Logger
	// NoDemoFill refuses a warehouse that holds no data (ErrEmpty) instead of
	// filling it with the demo dataset: only the single-user default may be
	// filled, never a file someone configured for a server with tenants.
	NoDemoFill bool
	// MemoryLimitMB, when positive, bounds the memory DuckDB uses to answer
	// queries (its memory_limit; large aggregations spill to a temporary
	// directory instead); 0 or negative keeps DuckDB's own (80% of RAM).
	// A low bound trades speed for memory, and queries running beside a
	// large aggregation may then fail for want of it (docs/benchmarks.md,
	// "Huge results in bounded memory").
	MemoryLimitMB int
}

// ErrEmpty: the warehouse holds no data and Options.NoDemoFill forbids the demo dataset.
var ErrEmpty = errors.New("the warehouse holds no data")

var (
	_ source.Source         = (*Source)(nil)
	_ source.CoverageSource = (*Source)(nil)
	_ source.Checker        = (*Source)(nil)
	_ source.DemoLabelled   = (*Source)(nil)
)

// Source is the embedded DuckDB warehouse.
type Source struct {
	db     *sql.DB
	path   string
	logger *slog.Logger
	// demo: whether the data is the demo dataset, and its label; a sync
	// into a writable Source may replace it (SyncTarget).
	demo atomic.Pointer[demoState]
	// corrupt is the first corruption a read found (noteCorruption).
	corrupt atomic.Pointer[error]
	// Sized counts and summarizes results in the warehouse (source.Sizer).
	sqlgen.Sized
	// spill is where DuckDB writes what its memory limit does not hold.
	spill *spillDir
	// writable: opened read-write by OpenWritable, so it can be synced.
	writable bool
}

// Open opens the warehouse at path, creating it and loading the demo dataset when
// it holds no data. A warehouse at an older schema version is migrated first
// when no other process has the file open; when one has, an older layout that
// still answers every query is read as it is, and one that does not is refused
// naming `adsmcp migrate` (docs/warehouse.md, "Schema versions"). After that
// the file is opened read-only, so several adsmcp processes (a server and the
// CLI) can read it at once.
func Open(ctx context.Context, path string, opt Options) (*Source, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if path == "" {
		path = DefaultPath()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create warehouse directory: %w", err)
	}
	if err := ensureLoaded(ctx, path, opt); err != nil {
		return nil, err
	}
	spill := newSpill(path, opt.MemoryLimitMB)
	db, err := openReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	reopen, err := upgradeOnOpen(ctx, path, db, opt.Logger)
	if err != nil {
		if !reopen {
			db.Close()
		}
		return nil, err
	}
	if reopen {
		if db, err = openReadOnly(ctx, path); err != nil {
			return nil, err
		}
	}
	isDemo, label, err := readDemo(ctx, db)
	if err == nil {
		err = spill.apply(ctx, db)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open warehouse %s: %w", path, err)
	}
	return newSource(&Source{db: db, path: path, logger: opt.Logger, spill: spill}, isDemo, label), nil
}

// openReadOnly opens the warehouse file read-only, as the server reads it.
func openReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, fmt.Errorf("open warehouse %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open warehouse %s: %w", path, err)
	}
	return db, nil
}

// ensureLoaded fills an empty warehouse with demo data.
func ensureLoaded(ctx context.Context, path string, opt Options) error {
	if _, err := os.Stat(path); err == nil {
		ro, err := sql.Open("duckdb", path+"?access_mode=read_only")
		if err == nil {
			complete, cerr := Loaded(ctx, ro)
			ro.Close()
			if cerr == nil && complete {
				return nil
			}
		}
	}
	if _, err := os.Stat(path); err != nil && opt.NoDemoFill {
		return fmt.Errorf("%w: %s", ErrEmpty, path) // and create no file
	}
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return fmt.Errorf("open warehouse %s: %w", path, err)
	}
	defer db.Close()
	complete, err := Loaded(ctx, db)
	if err != nil {
		return err
	}
	if complete {
		return nil
	}
	if opt.NoDemoFill {
		return fmt.Errorf("%w: %s", ErrEmpty, path)
	}
	return loadDemoInto(ctx, db, path, opt)
}

// loadDemoInto fills the empty warehouse db (at path) with opt's demo
// dataset.
func loadDemoInto(ctx context.Context, db *sql.DB, path string, opt Options) error {
	cfg := opt.Demo
	if cfg.Anchor.IsZero() {
		cfg.Anchor = time.Now()
	}
	opt.Logger.Info("warehouse is empty; loading the demo dataset", "path", path, "anchor", cfg.Anchor.Format(time.DateOnly))
	return Load(ctx, db, cfg, opt.Progress)
}

// Path is the warehouse file.
func (s *Source) Path() string { return s.path }

// Close closes the warehouse.
func (s *Source) Close() error {
	err := s.db.Close()
	s.spill.remove()
	return err
}

// DB exposes the database handle, for tests and benchmarks of this package's users.
func (s *Source) DB() *sql.DB { return s.db }

// Dataset returns the dataset's descriptive keys (kind, label, anchor, seed…).
func (s *Source) Dataset(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM dataset ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("read dataset info: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read dataset info: %w", err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

// Accounts lists every account in the warehouse.
func (s *Source) Accounts(ctx context.Context) ([]ads.Account, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT account_id, platform, account_name, currency, timezone, status,
		coalesce(attribution_window, ''), coalesce(conversion_actions, '')
		FROM accounts ORDER BY platform, account_name, account_id`)
	if err != nil {
		s.noteCorruption(err)
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	var out []ads.Account
	for rows.Next() {
		var a ads.Account
		if err := rows.Scan(&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status,
			&a.AttributionWindow, &a.ConversionActions); err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Coverage says which dates each account has data for (source.CoverageSource).
func (s *Source) Coverage(ctx context.Context, accountIDs []string) (map[string]source.Coverage, error) {
	if len(accountIDs) == 0 {
		return map[string]source.Coverage{}, nil
	}
	sql, args := sqlgen.CoverageSQL(sqlgen.DuckDB{}, accountIDs)
	rows, err := s.db.QueryContext(ctx, sql, args...)
	if err != nil {
		s.noteCorruption(err)
		return nil, fmt.Errorf("duckdb coverage: %w", err)
	}
	defer rows.Close()
	return sqlgen.ReadCoverage(rows)
}

// Query runs a normalized query.
func (s *Source) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	p, err := compile(q)
	if err != nil {
		return nil, err
	}
	source.CountCall(ctx)
	rows, err := s.db.QueryContext(ctx, p.sql, p.args...)
	if err != nil {
		s.noteCorruption(err)
		return nil, fmt.Errorf("duckdb query: %w", err)
	}
	defer rows.Close()
	t, err := sqlgen.ReadTable(ctx, rows, p.p, q.Grain)
	if err != nil {
		s.noteCorruption(err)
		return nil, fmt.Errorf("duckdb query: %w", err)
	}
	return t, nil
}

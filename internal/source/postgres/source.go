// Package postgres is a warehouse in PostgreSQL: the documented schema
// (schema.sql), read through a pgx connection pool with the SQL that
// internal/source/sqlgen generates for every SQL source, in PostgreSQL's
// dialect. The server only reads it: every query runs in a read-only
// transaction whose statement timeout ends with the call's deadline. Load,
// LoadDemo and Import (adsmcp demo and import --target) write it.
package postgres

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// Schema is schema version 1 of the warehouse (schema.sql, with its indexes),
// the layout of every warehouse written before versions existed. Frozen:
// never edit schema.sql — a change is a new version (schema.go).
//
//go:embed schema.sql
var Schema string

// Options configure Open.
type Options struct {
	// DSN is a libpq connection string or postgres:// URL.
	DSN string
	// MaxConns caps the pool (0: pgx's default).
	MaxConns int32
	// StatementTimeout bounds a query whose context has no deadline (0: none).
	StatementTimeout time.Duration
	// Logger for diagnostics (nil: slog.Default()).
	Logger *slog.Logger
}

// Source is a PostgreSQL warehouse.
type Source struct {
	pool    *pgxpool.Pool
	timeout time.Duration
	logger  *slog.Logger
	// demo is the demo dataset's label when the warehouse holds it.
	demo string
	// Sized counts and summarizes results in the warehouse (source.Sizer).
	sqlgen.Sized
}

var (
	_ source.Source         = (*Source)(nil)
	_ source.CoverageSource = (*Source)(nil)
)

// Open connects to the warehouse and checks that it answers.
func Open(ctx context.Context, opt Options) (*Source, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	cfg, err := pgxpool.ParseConfig(opt.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: connection settings: %w", err)
	}
	if opt.MaxConns > 0 {
		cfg.MaxConns = opt.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s := &Source{pool: pool, timeout: opt.StatementTimeout, logger: opt.Logger}
	s.Sized = sqlgen.Sized{Dialect: sqlgen.Postgres{}, Run: s.run}
	if err := s.checkSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	s.demo = source.ReadDemoLabel(ctx, s.Dataset)
	return s, nil
}

var _ source.DemoLabelled = (*Source)(nil)

// DemoData reports whether the warehouse holds the demo dataset
// (source.DemoLabelled), as read when it was opened.
func (s *Source) DemoData() (bool, string) { return s.demo != "", s.demo }

// Close closes the pool.
func (s *Source) Close() error { s.pool.Close(); return nil }

// Pool exposes the pool, for tests and loaders.
func (s *Source) Pool() *pgxpool.Pool { return s.pool }

// read runs fn in a read-only transaction whose statement_timeout ends at the
// context's deadline (or is the configured default).
func (s *Source) read(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // read-only: nothing to keep
	if ms := timeoutMillis(ctx, s.timeout, time.Now()); ms > 0 {
		// SET takes no parameters; ms is an integer we computed.
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms)); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// timeoutMillis is the statement timeout for a call: what is left until the
// context's deadline (at least 1 ms, as 0 would mean none), else def.
func timeoutMillis(ctx context.Context, def time.Duration, now time.Time) int64 {
	if dl, ok := ctx.Deadline(); ok {
		return max(1, int64(math.Ceil(float64(dl.Sub(now))/float64(time.Millisecond))))
	}
	return def.Milliseconds()
}

// Dataset returns the dataset's descriptive keys.
func (s *Source) Dataset(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT key, value FROM dataset ORDER BY key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out[k] = v
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: read dataset info: %w", err)
	}
	return out, nil
}

// Accounts lists every account in the warehouse.
func (s *Source) Accounts(ctx context.Context) ([]ads.Account, error) {
	var out []ads.Account
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT account_id, platform, account_name, currency, timezone, status,
			coalesce(attribution_window, ''), coalesce(conversion_actions, '')
			FROM accounts ORDER BY platform COLLATE "C", account_name COLLATE "C", account_id COLLATE "C"`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a ads.Account
			if err := rows.Scan(&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status,
				&a.AttributionWindow, &a.ConversionActions); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list accounts: %w", err)
	}
	return out, nil
}

// Coverage says which dates each account has data for (source.CoverageSource).
func (s *Source) Coverage(ctx context.Context, accountIDs []string) (map[string]source.Coverage, error) {
	out := map[string]source.Coverage{}
	if len(accountIDs) == 0 {
		return out, nil
	}
	sql, args := sqlgen.CoverageSQL(sqlgen.Postgres{}, accountIDs)
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlgen.ReadCoverage(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres coverage: %w", err)
	}
	return out, nil
}

// Query runs a normalized query.
func (s *Source) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	p, err := sqlgen.Compile(q, sqlgen.Postgres{})
	if err != nil {
		return nil, err
	}
	source.CountCall(ctx)
	var t *fit.Table
	err = s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, p.SQL, p.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		t, err = sqlgen.ReadTable(ctx, rows, p, q.Grain)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres query: %w", err)
	}
	return t, nil
}

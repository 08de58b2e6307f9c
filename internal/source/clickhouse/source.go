// Package clickhouse is a warehouse in ClickHouse: the schema in schema.sql
// (the documented tables, denormalized as ClickHouse prefers), read over the
// native protocol with clickhouse-go and the SQL that internal/source/sqlgen
// generates for every SQL source, in ClickHouse's dialect. adsmcp only reads
// it: every query runs with readonly=2 and a max_execution_time that ends
// with the call's deadline (the context cancels it on the server too).
// Loading (Load, LoadDemo, Import) goes through ClickHouse's HTTP interface,
// which every server version speaks.
package clickhouse

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

// Schema is schema version 1 of the warehouse (schema.sql: statements
// separated by a line holding ";"), the layout of every warehouse written
// before versions existed. Frozen: never edit schema.sql — a change is a new
// version (schema.go).
//
//go:embed schema.sql
var Schema string

// Options configure Open.
type Options struct {
	// DSN is clickhouse://user:password@host:9000/database, with http_port
	// (default 8123) for loading and any clickhouse-go parameter.
	DSN string
	// MaxConns caps the connection pool (0: clickhouse-go's default).
	MaxConns int
	// StatementTimeout bounds a query whose context has no deadline (0: none).
	StatementTimeout time.Duration
	// Logger for diagnostics (nil: slog.Default()).
	Logger *slog.Logger
}

// Source is a ClickHouse warehouse.
type Source struct {
	db      *sql.DB
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
	e, err := parseDSN(opt.DSN)
	if err != nil {
		return nil, err
	}
	if opt.MaxConns > 0 {
		e.native.MaxOpenConns = opt.MaxConns
	}
	db := ch.OpenDB(e.native)
	s := &Source{db: db, timeout: opt.StatementTimeout, logger: opt.Logger}
	s.Sized = sqlgen.Sized{Dialect: sqlgen.ClickHouse{}, Run: s.run}
	if err := db.PingContext(s.settings(ctx)); err != nil {
		db.Close()
		return nil, fmt.Errorf("clickhouse: connect to %s: %w", Redact(opt.DSN), err)
	}
	if err := s.checkSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s.demo = source.ReadDemoLabel(ctx, s.Dataset)
	return s, nil
}

var _ source.DemoLabelled = (*Source)(nil)

// DemoData reports whether the warehouse holds the demo dataset
// (source.DemoLabelled), as read when it was opened.
func (s *Source) DemoData() (bool, string) { return s.demo != "", s.demo }

// Close closes the connections.
func (s *Source) Close() error { return s.db.Close() }

// settings are the query settings of a read: read-only (2: settings may still
// be changed, as max_execution_time must), and a time limit ending at the
// context's deadline, else the configured default.
func (s *Source) settings(ctx context.Context) context.Context {
	set := ch.Settings{"readonly": 2}
	if sec := timeoutSeconds(ctx, s.timeout, time.Now()); sec > 0 {
		set["max_execution_time"] = sec
	}
	return ch.Context(ctx, ch.WithSettings(set))
}

// timeoutSeconds is max_execution_time for a call (whole seconds, at least 1:
// the context's deadline cancels the query sooner when it comes first), or
// def, or 0 for none.
func timeoutSeconds(ctx context.Context, def time.Duration, now time.Time) int64 {
	if dl, ok := ctx.Deadline(); ok {
		return max(1, int64(math.Ceil(dl.Sub(now).Seconds())))
	}
	if def > 0 {
		return max(1, int64(math.Ceil(def.Seconds())))
	}
	return 0
}

// Dataset returns the dataset's descriptive keys.
func (s *Source) Dataset(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(s.settings(ctx), `SELECT key, value FROM dataset ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: read dataset info: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("clickhouse: read dataset info: %w", err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse: read dataset info: %w", err)
	}
	return out, nil
}

// Accounts lists every account in the warehouse, in byte order of platform,
// name and ID like the other engines.
func (s *Source) Accounts(ctx context.Context) ([]ads.Account, error) {
	rows, err := s.db.QueryContext(s.settings(ctx), `SELECT account_id, platform, account_name, currency, timezone, status,
		ifNull(attribution_window, ''), ifNull(conversion_actions, '')
		FROM accounts ORDER BY platform, account_name, account_id`)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: list accounts: %w", err)
	}
	defer rows.Close()
	var out []ads.Account
	for rows.Next() {
		var a ads.Account
		if err := rows.Scan(&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status,
			&a.AttributionWindow, &a.ConversionActions); err != nil {
			return nil, fmt.Errorf("clickhouse: list accounts: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse: list accounts: %w", err)
	}
	return out, nil
}

// Coverage says which dates each account has data for (source.CoverageSource).
func (s *Source) Coverage(ctx context.Context, accountIDs []string) (map[string]source.Coverage, error) {
	if len(accountIDs) == 0 {
		return map[string]source.Coverage{}, nil
	}
	sql, args := sqlgen.CoverageSQL(sqlgen.ClickHouse{}, accountIDs)
	rows, err := s.db.QueryContext(s.settings(ctx), sql, bindArgs(args)...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse coverage: %w", err)
	}
	defer rows.Close()
	out, err := sqlgen.ReadCoverage(rows)
	if err != nil {
		return nil, fmt.Errorf("clickhouse coverage: %w", err)
	}
	return out, nil
}

// Query runs a normalized query.
func (s *Source) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	p, err := sqlgen.Compile(q, sqlgen.ClickHouse{})
	if err != nil {
		return nil, err
	}
	source.CountCall(ctx)
	rows, err := s.db.QueryContext(s.settings(ctx), p.SQL, bindArgs(p.Args)...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse query: %w", err)
	}
	defer rows.Close()
	t, err := sqlgen.ReadTable(ctx, rows, p, q.Grain)
	if err != nil {
		return nil, fmt.Errorf("clickhouse query: %w", err)
	}
	return t, nil
}

// bindArgs passes dates as 'YYYY-MM-DD' text (the dialect wraps their
// placeholders in toDate), the one form every server version parses the same.
func bindArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			out[i] = t.Format(time.DateOnly)
			continue
		}
		out[i] = a
	}
	return out
}

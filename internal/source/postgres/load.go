package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// ErrNotEmpty is returned by Load when the warehouse already holds data.
var ErrNotEmpty = errors.New("postgres: the warehouse already holds data; load into an empty one")

// columns of each table, in the order the loader sends them.
var columns = map[string][]string{
	"dataset":   {"key", "value"},
	"accounts":  {"account_id", "platform", "account_name", "currency", "timezone", "status", "attribution_window", "conversion_actions"},
	"campaigns": {"campaign_id", "account_id", "campaign_name", "campaign_objective", "campaign_status", "start_date", "end_date"},
	"adsets":    {"adset_id", "campaign_id", "account_id", "adset_name"},
	"ads":       {"ad_id", "adset_id", "campaign_id", "account_id", "ad_name"},
	"facts":     factColumns(),
	"reach":     {"level", "object_id", "account_id", "grain", "period_start", "reach"},
}

// batch is how many rows are buffered before one COPY.
const batch = 20000

// Load creates the schema (schema.sql) and fills the warehouse with what
// produce sends its Sink, through COPY, in one transaction ending with the
// complete=true dataset row: on any error nothing is left behind. A warehouse
// that already holds data (a dataset row, an account or a fact) is refused
// with ErrNotEmpty: loading on top would mix or duplicate rows. It is for
// tests, demos (adsmcp demo --target) and one-off loads; the server only reads.
func Load(ctx context.Context, pool *pgxpool.Pool, produce func(context.Context, ads.Sink) error) error {
	return load(ctx, pool, produce, false)
}

// LoadDemo loads the deterministic demo dataset described by cfg; progress,
// if not nil, is told how far the generator is (demo.ProgressLine.Update).
func LoadDemo(ctx context.Context, pool *pgxpool.Pool, cfg demo.Config, progress func(done, total int64)) error {
	return load(ctx, pool, demoProducer(cfg, progress), false)
}

// ReplaceWithDemo drops the warehouse's tables in the connection's current
// schema (those of schema.sql, and the imports ledger) and loads the demo
// dataset, in one transaction, so that on any error the old warehouse is left
// as it was (`adsmcp demo --force`). Readers wait for the commit.
func ReplaceWithDemo(ctx context.Context, pool *pgxpool.Pool, cfg demo.Config, progress func(done, total int64)) error {
	return load(ctx, pool, demoProducer(cfg, progress), true)
}

func demoProducer(cfg demo.Config, progress func(done, total int64)) func(context.Context, ads.Sink) error {
	return func(ctx context.Context, sink ads.Sink) error {
		return demo.Generate(ctx, cfg, sink, progress)
	}
}

func load(ctx context.Context, pool *pgxpool.Pool, produce func(context.Context, ads.Sink) error, replace bool) (err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: load: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.Background()) //nolint:errcheck // the first error is the one to report
		}
	}()
	schema, err := currentSchema(ctx, tx)
	if err != nil {
		return err
	}
	if replace {
		if err := dropTables(ctx, tx, schema); err != nil {
			return err
		}
	}
	if err := ensureSchema(ctx, tx); err != nil {
		return err
	}
	var nonEmpty bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM dataset) OR EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM facts)`).Scan(&nonEmpty); err != nil {
		return fmt.Errorf("postgres: load: %w", err)
	}
	if nonEmpty {
		return ErrNotEmpty
	}
	l := &loader{ctx: ctx, tx: tx}
	if err := produce(ctx, l); err != nil {
		return err
	}
	if err := l.flush(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO dataset (key, value) VALUES ('complete', 'true')`); err != nil {
		return fmt.Errorf("postgres: load: %w", err)
	}
	// The warehouse's tables only: a bare ANALYZE would go through every table
	// of a shared database.
	if _, err := tx.Exec(ctx, `ANALYZE dataset, accounts, campaigns, adsets, ads, facts, reach`); err != nil {
		return fmt.Errorf("postgres: analyze: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: load: %w", err)
	}
	return nil
}

// dropTables drops the warehouse's tables in the current schema only (named
// with it, so that a table of another schema later in search_path is never
// touched).
func dropTables(ctx context.Context, tx pgx.Tx, schema string) error {
	names := make([]string, 0, len(importTables)+1)
	for _, t := range append(slices.Clone(importTables), migration.VersionTable) {
		names = append(names, pgx.Identifier{schema, t}.Sanitize())
	}
	if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+strings.Join(names, ", ")); err != nil {
		return fmt.Errorf("postgres: drop the warehouse's tables: %w", err)
	}
	return nil
}

// loader is an ads.Sink buffering rows of one table at a time for COPY.
type loader struct {
	ctx   context.Context
	tx    pgx.Tx
	table string
	rows  [][]any
}

func (l *loader) add(table string, row ...any) error {
	if table != l.table || len(l.rows) >= batch {
		if err := l.flush(); err != nil {
			return err
		}
		l.table = table
	}
	l.rows = append(l.rows, row)
	return nil
}

func (l *loader) flush() error {
	if len(l.rows) == 0 {
		return nil
	}
	_, err := l.tx.CopyFrom(l.ctx, pgx.Identifier{l.table}, columns[l.table], pgx.CopyFromRows(l.rows))
	l.rows = l.rows[:0]
	if err != nil {
		return fmt.Errorf("postgres: copy into %s: %w", l.table, err)
	}
	return nil
}

// null maps the empty string, the producers' NULL, to SQL NULL.
func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// date maps the zero time, the producers' NULL date, to SQL NULL.
func date(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func (l *loader) Dataset(key, value string) error { return l.add("dataset", key, value) }

func (l *loader) Account(a ads.Account) error {
	return l.add("accounts", a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status,
		null(a.AttributionWindow), null(a.ConversionActions))
}

func (l *loader) Campaign(c ads.Campaign) error {
	return l.add("campaigns", c.CampaignID, c.AccountID, null(c.Name), null(c.Objective), null(c.Status),
		date(c.StartDate), date(c.EndDate))
}

func (l *loader) AdSet(s ads.AdSet) error {
	return l.add("adsets", s.AdSetID, s.CampaignID, s.AccountID, null(s.Name))
}

func (l *loader) Ad(a ads.Ad) error {
	return l.add("ads", a.AdID, a.AdSetID, a.CampaignID, a.AccountID, null(a.Name))
}

func (l *loader) Fact(f *ads.Fact) error {
	return l.add("facts", factRow(f, f.AccountID)...)
}

// factColumns are the facts table's columns in the order factRow sends them:
// the dimensions, then the catalog's measures.
func factColumns() []string {
	cols := append([]string{"date"}, ads.FactTextColumns[:]...)
	for _, c := range catalog.FactColumns() {
		cols = append(cols, c.Name)
	}
	return cols
}

// factRow is a fact's values for COPY, with accountID as its account's
// spelling: money and counts as integers, a measure its platform does not
// report as NULL.
func factRow(f *ads.Fact, accountID string) []any {
	row := make([]any, 0, 1+ads.NumFactTexts+catalog.NumMeasures)
	row = append(row, f.Date, accountID)
	for i, v := range f.Texts() {
		switch {
		case i == 0: // the account, as spelled
		case i == ads.FactBreakdownColumn:
			row = append(row, v)
		default:
			row = append(row, null(v))
		}
	}
	for _, c := range catalog.FactColumns() {
		v := f.Measures[c.Measure]
		switch {
		case v == ads.NotReported && c.Nullable:
			row = append(row, nil)
		case c.Kind == catalog.Double:
			row = append(row, v)
		default:
			row = append(row, int64(v))
		}
	}
	return row
}

func (l *loader) Reach(r ads.Reach) error {
	return l.add("reach", r.Level, r.ObjectID, r.AccountID, r.Grain, r.PeriodStart, r.Reach)
}

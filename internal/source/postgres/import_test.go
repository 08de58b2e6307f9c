package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The import conformance suite: PostgreSQL imports as DuckDB does, report
// for report and answer for answer.
func TestImportConformance(t *testing.T) {
	sourcetest.RunImport(t, sourcetest.ImportWarehouse{Fresh: func(t *testing.T) sourcetest.ImportTarget {
		return importSchema{freshSchema(t)}
	}}, duckdbtest.ImportWarehouse())
}

// importSchema is a fresh schema under the import suite.
type importSchema struct{ pool *pgxpool.Pool }

func (s importSchema) Name() string { return postgres.Describe(s.pool.Config().ConnConfig) }

func (s importSchema) Import(ctx context.Context, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	return postgres.Import(ctx, s.pool, exports, opt)
}

func (s importSchema) LoadDemo(ctx context.Context, cfg demo.Config) error {
	return postgres.LoadDemo(ctx, s.pool, cfg, nil)
}

func (s importSchema) Open(t *testing.T) sourcetest.DatasetSource {
	t.Helper()
	src, err := postgres.Open(context.Background(), postgres.Options{DSN: s.pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func (s importSchema) Snapshot(t *testing.T) string           { return checksum(t, s.pool) }
func (s importSchema) Count(t *testing.T, query string) int64 { return count(t, s.pool, query) }

// The importer's sample exports.
const importTestdata = "../../importer/testdata/"

const metaAccount = "act_1015823746512093"

// freshSchema is a new schema of the test server, dropped when the test ends,
// and a pool whose search_path is it.
func freshSchema(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.FreshSchema(t, "adsmcp_import_test")
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func parseExport(t *testing.T, name string, opt importer.Options) *importer.Export {
	t.Helper()
	data, err := os.ReadFile(importTestdata + name)
	if err != nil {
		t.Fatal(err)
	}
	return parseBytes(t, name, data, opt)
}

func parseBytes(t *testing.T, name string, data []byte, opt importer.Options) *importer.Export {
	t.Helper()
	ex, err := importer.Parse(name, data, opt)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return ex
}

func mustImport(t *testing.T, pool *pgxpool.Pool, opt postgres.ImportOptions, exports ...*importer.Export) *postgres.ImportResult {
	t.Helper()
	res, err := postgres.Import(context.Background(), pool, exports, opt)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

// checksum covers every table an import writes, the ledger included: rows in
// text form, sorted (PostgreSQL has no row order to rely on). A missing table
// sums to "none".
func checksum(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, table := range []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports"} {
		var exists bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		sum := "none"
		if exists {
			err := pool.QueryRow(ctx, `SELECT md5(coalesce(string_agg(t::text, E'\n' ORDER BY t::text COLLATE "C"), '')) FROM `+table+` t`).Scan(&sum)
			if err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&b, "%s=%s ", table, sum)
	}
	return b.String()
}

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// Concurrent imports of the same period (a re-export each) are serialized:
// the latest wins and no day is counted twice. Into a new schema (creating
// the tables), then into existing tables.
func TestConcurrentImportsNeverDoubleCount(t *testing.T) {
	pool := freshSchema(t)
	concurrentImports(t, pool, 0)
	concurrentImports(t, pool, 4)
}

func concurrentImports(t *testing.T, pool *pgxpool.Pool, round int) {
	data, err := os.ReadFile(importTestdata + "meta_en_campaigns_daily.csv")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		k := round + i // other bytes for every file of every round
		ex := parseBytes(t, fmt.Sprintf("copy%d.csv", k), append(data, strings.Repeat("\n", k)...), importer.Options{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = postgres.Import(context.Background(), pool, []*importer.Export{ex}, postgres.ImportOptions{})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM facts WHERE account_id = $1`, metaAccount); n != 6 {
		t.Errorf("%d facts after concurrent imports", n)
	}
	if n := count(t, pool, `SELECT sum(spend_micros) FROM facts WHERE account_id = $1`, metaAccount); n != 4_321_090_000 {
		t.Errorf("spend %d after concurrent imports", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM reach`); n != 6 {
		t.Errorf("%d reach rows", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts", n)
	}
}

// PostgreSQL's DDL is transactional: a failed import, or a dry run, into an
// empty schema leaves no table behind, though the tables were created (and
// the first file written); and an import cancelled midway changes nothing.
func TestImportRollsBackTablesAndMidwayCancels(t *testing.T) {
	pool := freshSchema(t)
	google := parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	meta := parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{})
	// A Google file claiming the Meta account.
	wrong := parseBytes(t, "g.csv", []byte("Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00,1\n"),
		importer.Options{AccountID: "act_1015823746512093", Currency: "USD"})

	_, err := postgres.Import(context.Background(), pool, []*importer.Export{meta, wrong}, postgres.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "meta_ads account") {
		t.Errorf("platform conflict: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := postgres.Import(ctx, pool, []*importer.Export{google}, postgres.ImportOptions{}); err == nil {
		t.Errorf("import with a cancelled context succeeded")
	}
	mustImport(t, pool, postgres.ImportOptions{DryRun: true}, google)
	if n := count(t, pool, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Errorf("failed imports and a dry run left %d tables", n)
	}

	mustImport(t, pool, postgres.ImportOptions{}, meta)
	before := checksum(t, pool)
	// Cancelled while writing: once the account is added and the facts of its
	// dates deleted.
	ctx, cancel = context.WithCancel(context.Background())
	tracer := &cancelAfter{n: 12, cancel: cancel}
	cfg := pool.Config().Copy()
	cfg.ConnConfig.Tracer = tracer
	traced, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer traced.Close()
	if _, err := postgres.Import(ctx, traced, []*importer.Export{google}, postgres.ImportOptions{}); err == nil {
		t.Errorf("an import cancelled midway succeeded")
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("an import cancelled midway changed the warehouse")
	}
}

// cancelAfter cancels the import's context when its nth statement starts.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return ctx
}

func (c *cancelAfter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Imported data is not replaced by the demo (ErrNotEmpty); ReplaceWithDemo
// drops it, the ledger included, and loads the demo dataset.
func TestReplaceWithDemoDropsImports(t *testing.T) {
	pool := freshSchema(t)
	ctx := context.Background()
	cfg := demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 1, Days: 5, Scale: 0.01}
	mustImport(t, pool, postgres.ImportOptions{}, parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"}))
	if err := postgres.LoadDemo(ctx, pool, cfg, nil); !errors.Is(err, postgres.ErrNotEmpty) {
		t.Errorf("LoadDemo over imported data: %v", err)
	}
	if err := postgres.ReplaceWithDemo(ctx, pool, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM dataset WHERE key = 'kind' AND value = 'demo'`); n != 1 {
		t.Errorf("not a demo warehouse after ReplaceWithDemo")
	}
	if n := count(t, pool, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'imports'`); n != 0 {
		t.Errorf("the imports ledger survived ReplaceWithDemo")
	}
	if n := count(t, pool, `SELECT count(*) FROM accounts WHERE account_id = '111-222-3333'`); n != 0 {
		t.Errorf("imported accounts survived ReplaceWithDemo")
	}
	_, err := postgres.Import(ctx, pool, []*importer.Export{parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{})}, postgres.ImportOptions{})
	if !errors.Is(err, postgres.ErrDemoData) {
		t.Errorf("import over the demo: %v", err)
	}
}

// Describe never shows a password.
func TestDescribeHidesThePassword(t *testing.T) {
	cfg, err := pgxpool.ParseConfig("postgres://ads:s3cret@db.example:6543/warehouse?search_path=imports&sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	got := postgres.Describe(cfg.ConnConfig)
	if got != "postgres://ads@db.example:6543/warehouse?search_path=imports" {
		t.Errorf("Describe = %s", got)
	}
}

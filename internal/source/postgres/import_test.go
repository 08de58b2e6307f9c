package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The importer's sample exports.
const importTestdata = "../../importer/testdata/"

const metaAccount = "act_1015823746512093"

// freshSchema is a new schema of the test server, dropped when the test ends,
// and a pool whose search_path is it.
func freshSchema(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	dsn := postgres.FreshSchemaForTest(t, "adsmcp_import_test")
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

// sampleExports are every well-formed sample export, with the options each needs.
func sampleExports(t *testing.T) []*importer.Export {
	return []*importer.Export{
		parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}),
		parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co - Search", Timezone: "America/New_York"}),
		parseExport(t, "meta_es_adsets_daily.csv", importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"}),
		parseExport(t, "google_es_semicolon.csv", importer.Options{AccountID: "111-222-3334", Timezone: "Europe/Madrid"}),
	}
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

type factSums struct {
	facts                     int64
	spend, value, impressions int64
	conversions               float64
}

func sumsOf(t *testing.T, pool *pgxpool.Pool, account string) factSums {
	t.Helper()
	var s factSums
	err := pool.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(spend_micros), 0), coalesce(sum(conversion_value_micros), 0),
		coalesce(sum(impressions), 0), coalesce(sum(conversions), 0) FROM facts WHERE account_id = $1`, account).
		Scan(&s.facts, &s.spend, &s.value, &s.impressions, &s.conversions)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// The sample exports imported into PostgreSQL and into a DuckDB file give the
// same accounts, dataset description, import report and query answers.
func TestImportAnswersLikeDuckDB(t *testing.T) {
	pool := freshSchema(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	exports := sampleExports(t)
	pgRes := mustImport(t, pool, postgres.ImportOptions{Now: now}, exports...)

	path := filepath.Join(t.TempDir(), "imported.duckdb")
	duckRes, err := duckdb.Import(ctx, path, sampleExports(t), duckdb.ImportOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !pgRes.Created || !strings.HasPrefix(pgRes.Target, "postgres://") || strings.Contains(pgRes.Target, "@@") {
		t.Errorf("result %+v", pgRes)
	}
	if a, b := fmt.Sprintf("%+v", duckRes.Files), fmt.Sprintf("%+v", pgRes.Files); a != b {
		t.Errorf("file reports differ:\nduckdb   %s\npostgres %s", a, b)
	}

	duck, err := duckdb.Open(ctx, path, duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	pg := openSchema(t, pool)
	wantInfo, err := duck.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotInfo, err := pg.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(wantInfo) != fmt.Sprint(gotInfo) || gotInfo["kind"] != "import" || gotInfo["complete"] != "true" ||
		gotInfo["first_date"] != "2026-01-01" || gotInfo["last_date"] != "2026-02-02" {
		t.Errorf("dataset:\nduckdb   %v\npostgres %v", wantInfo, gotInfo)
	}
	accounts, err := duck.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotAccounts, err := pg.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(accounts) != fmt.Sprint(gotAccounts) || len(accounts) != 4 {
		t.Fatalf("accounts:\nduckdb   %v\npostgres %v", accounts, gotAccounts)
	}
	for _, raw := range []string{
		`{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","ctr","roas"],"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
		`{"account_ids":["act_1015823746512093"],"metrics":["reach","spend","frequency"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
		`{"account_ids":["111-222-3333","111-222-3334"],"metrics":["spend","conversions","conversion_value","cpc"],"dimensions":["account_name","campaign_name","campaign_status"],"date_range":{"start":"2026-01-01","end":"2026-02-28"},"sort":[{"field":"spend","direction":"desc"}]}`,
		`{"account_ids":["act_2284619037465520"],"metrics":["spend","link_clicks","conversions"],"dimensions":["adset_name"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-02"}}`,
		`{"account_ids":["act_1015823746512093","111-222-3333","act_2284619037465520","111-222-3334"],"metrics":["spend","impressions","cpm"],"dimensions":["currency","platform"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`,
	} {
		q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatalf("normalize %s: %v", raw, err)
		}
		want := queryDump(t, duck, q)
		if got := queryDump(t, pg, q); got != want {
			t.Errorf("answers differ for %s\n--- duckdb\n%s\n--- postgres\n%s", raw, want, got)
		}
		if !strings.Contains(want, "\n") || strings.Count(want, "\n") < 3 {
			t.Errorf("the query selects nothing, so it proves little: %s\n%s", raw, want)
		}
	}
}

func queryDump(t *testing.T, src source.Source, q *query.Query) string {
	t.Helper()
	c := *q
	tab, err := src.Query(context.Background(), &c)
	if err != nil {
		t.Fatalf("%T: %v", src, err)
	}
	return sourcetest.Dump(t, tab)
}

// openSchema opens the pool's schema as a source (through a pool of its own,
// with the same settings).
func openSchema(t *testing.T, pool *pgxpool.Pool) *postgres.Source {
	t.Helper()
	src, err := postgres.Open(context.Background(), postgres.Options{DSN: pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// Importing the same file again adds nothing; a re-export of the same period
// (other bytes) replaces the same facts: the totals never change.
func TestImportIsIdempotent(t *testing.T) {
	pool := freshSchema(t)
	data, err := os.ReadFile(importTestdata + "meta_en_campaigns_daily.csv")
	if err != nil {
		t.Fatal(err)
	}
	ex := parseBytes(t, "q1.csv", data, importer.Options{})
	mustImport(t, pool, postgres.ImportOptions{}, ex)
	before := checksum(t, pool)

	res := mustImport(t, pool, postgres.ImportOptions{}, ex)
	if f := res.Files[0]; !f.AlreadyImported || f.ImportedAs != "q1.csv" || f.FactsAdded != 0 || res.Created ||
		time.Since(f.ImportedAt) > time.Hour || f.ImportedAt.Location() != time.UTC {
		t.Errorf("second import %+v", res.Files[0])
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("re-importing the same file changed the warehouse:\n%s\n%s", before, after)
	}

	reexport := parseBytes(t, "q1 (1).csv", append(data, "\n"...), importer.Options{})
	res = mustImport(t, pool, postgres.ImportOptions{}, reexport)
	if f := res.Files[0]; f.AlreadyImported || f.FactsAdded != 6 || f.FactsReplaced != 6 || f.ReachReplaced != 6 || f.NewCampaigns != 0 || len(f.Dropped) != 0 {
		t.Errorf("re-export %+v", f)
	}
	if got := sumsOf(t, pool, metaAccount); got.facts != 6 || got.spend != 4_321_090_000 {
		t.Errorf("after the re-export: %+v", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM campaigns`); n != 3 {
		t.Errorf("%d campaigns", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM imports`); n != 2 {
		t.Errorf("%d imports", n)
	}
}

// An overlapping export replaces the overlapping days only, never counting a
// day twice, and says which campaigns it dropped there.
func TestImportOverlapReplacesItsDays(t *testing.T) {
	pool := freshSchema(t)
	mustImport(t, pool, postgres.ImportOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}))
	later := `"Account ID","Campaign name","Day","Impressions","Amount spent (USD)","Reach"
1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00,50
1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00,60
`
	res := mustImport(t, pool, postgres.ImportOptions{}, parseBytes(t, "later.csv", []byte(later), importer.Options{}))
	f := res.Files[0]
	if f.FactsAdded != 2 || f.FactsReplaced != 2 || f.ReachReplaced != 2 || len(f.Dropped) != 1 || f.Dropped[0] != `Brand Awareness — Ñandú "Q1"` {
		t.Errorf("overlap %+v", f)
	}
	want := int64(1_000_100_000 + 1_200_550_000 + 380_120_000 + 380_120_000 + 10_000_000 + 20_000_000)
	if got := sumsOf(t, pool, metaAccount); got.facts != 6 || got.spend != want {
		t.Errorf("after the overlap: %+v, want spend %d", got, want)
	}
	if n := count(t, pool, `SELECT count(*) FROM dataset WHERE key = 'last_date' AND value = '2026-01-04'`); n != 1 {
		t.Errorf("last_date not moved to 2026-01-04")
	}
	if n := count(t, pool, `SELECT count(*) FROM reach WHERE account_id = $1 AND period_start = '2026-01-03'`, metaAccount); n != 1 {
		t.Errorf("%d reach rows on the replaced day", n)
	}
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
	if got := sumsOf(t, pool, metaAccount); got.facts != 6 || got.spend != 4_321_090_000 {
		t.Errorf("after concurrent imports: %+v", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM reach`); n != 6 {
		t.Errorf("%d reach rows", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts", n)
	}
}

// A conflict in any file, or a cancelled context, rolls back every file of the
// import: the warehouse is exactly as before, tables included.
func TestImportIsOneTransaction(t *testing.T) {
	pool := freshSchema(t)
	google := parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})

	meta := parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{})
	// A Google file claiming the Meta account.
	wrong := parseBytes(t, "g.csv", []byte("Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00,1\n"),
		importer.Options{AccountID: "act_1015823746512093", Currency: "USD"})

	// Into an empty schema: a failure leaves no table behind, though the first
	// file was written.
	_, err := postgres.Import(context.Background(), pool, []*importer.Export{meta, wrong}, postgres.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "meta_ads account") {
		t.Errorf("platform conflict: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := postgres.Import(ctx, pool, []*importer.Export{google}, postgres.ImportOptions{}); err == nil {
		t.Errorf("import with a cancelled context succeeded")
	}
	if n := count(t, pool, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Errorf("failed imports left %d tables", n)
	}

	mustImport(t, pool, postgres.ImportOptions{}, meta)
	before := checksum(t, pool)
	eur := `"Account ID","Campaign name","Day","Impressions","Amount spent (EUR)"
1015823746512093,C,2026-02-01,1,1.00
`
	bad := parseBytes(t, "eur.csv", []byte(eur), importer.Options{})
	_, err = postgres.Import(context.Background(), pool, []*importer.Export{google, bad}, postgres.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "eur.csv") || !strings.Contains(err.Error(), "is in USD in the warehouse") {
		t.Fatalf("conflicting import: %v", err)
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("a failed import changed the warehouse")
	}

	if _, err := postgres.Import(context.Background(), pool, []*importer.Export{google, wrong}, postgres.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "meta_ads account") {
		t.Errorf("platform conflict: %v", err)
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("a failed import changed the warehouse")
	}

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

func TestImportDryRun(t *testing.T) {
	pool := freshSchema(t)
	ex := parseExport(t, "meta_es_adsets_daily.csv", importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"})

	res := mustImport(t, pool, postgres.ImportOptions{DryRun: true}, ex)
	if !res.DryRun || !res.Created || res.Files[0].FactsAdded != 4 {
		t.Errorf("dry run %+v", res)
	}
	if n := count(t, pool, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Errorf("a dry run into an empty schema created %d tables", n)
	}

	mustImport(t, pool, postgres.ImportOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}))
	before := checksum(t, pool)
	res = mustImport(t, pool, postgres.ImportOptions{DryRun: true}, ex)
	if res.Created || res.Files[0].FactsAdded != 4 || len(res.Files[0].NewAccounts) != 1 {
		t.Errorf("dry run %+v", res.Files[0])
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("a dry run changed the warehouse")
	}
}

// A warehouse holding the demo dataset is refused, unchanged; ReplaceDemo
// empties it first. ReplaceWithDemo turns it back into a demo warehouse.
func TestImportRefusesDemoData(t *testing.T) {
	pool := freshSchema(t)
	ctx := context.Background()
	cfg := demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 1, Days: 5, Scale: 0.01}
	if err := postgres.LoadDemo(ctx, pool, cfg, nil); err != nil {
		t.Fatal(err)
	}
	before := checksum(t, pool)
	ex := parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	_, err := postgres.Import(ctx, pool, []*importer.Export{ex}, postgres.ImportOptions{})
	if !errors.Is(err, postgres.ErrDemoData) || !errors.Is(err, importer.ErrDemoData) || !strings.Contains(err.Error(), "--replace-demo") ||
		!strings.Contains(err.Error(), "demo dataset") {
		t.Fatalf("import over demo data: %v", err)
	}
	if after := checksum(t, pool); after != before {
		t.Errorf("a refused import changed the warehouse")
	}

	res := mustImport(t, pool, postgres.ImportOptions{ReplaceDemo: true}, ex)
	if !res.DemoReplaced || res.Created {
		t.Errorf("result %+v", res)
	}
	if n := count(t, pool, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts after replacing the demo data", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM dataset WHERE key IN ('anchor', 'seed')`); n != 0 {
		t.Errorf("demo dataset keys left")
	}
	got := sumsOf(t, pool, "111-222-3333")
	if got.facts != 5 || got.spend != 4_514_720_000 || got.conversions != 34.75 {
		t.Errorf("google sums %+v", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM facts WHERE link_clicks IS NOT NULL`); n != 0 {
		t.Errorf("%d Google facts with link clicks", n)
	}

	// Now imported data: loading the demo is refused, and ReplaceWithDemo drops it.
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
}

// Ad sets and ads merge by ID across files; names follow the latest import.
func TestImportMergesObjects(t *testing.T) {
	pool := freshSchema(t)
	opt := importer.Options{AccountID: "act_7", Currency: "USD"}
	first := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring,11,Broad,111,Video A,2026-04-01,10,1.00
1,Spring,11,Broad,112,Video B,2026-04-01,10,1.00
`
	second := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring (renamed),11,Broad,111,Video A,2026-04-02,10,1.00
1,Spring (renamed),12,Lookalike,121,Static,2026-04-02,10,1.00
`
	mustImport(t, pool, postgres.ImportOptions{}, parseBytes(t, "1.csv", []byte(first), opt), parseBytes(t, "2.csv", []byte(second), opt))
	for q, want := range map[string]int64{
		`SELECT count(*) FROM campaigns`: 1, `SELECT count(*) FROM adsets`: 2, `SELECT count(*) FROM ads`: 3, `SELECT count(*) FROM facts`: 4,
		`SELECT count(*) FROM campaigns WHERE campaign_name = 'Spring (renamed)' AND start_date = DATE '2026-04-01'`: 1,
		`SELECT count(*) FROM accounts WHERE account_name = 'act_7' AND timezone = 'UTC'`:                            1,
	} {
		if n := count(t, pool, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
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

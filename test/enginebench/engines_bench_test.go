package enginebench

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// BenchmarkEngines runs the same queries on DuckDB and on PostgreSQL and
// ClickHouse (each when its test server is set: ADSMCP_TEST_PG_DSN,
// ADSMCP_TEST_CH_DSN) holding the same demo warehouse (anchor 2026-03-15,
// default seed; $ADSMCP_BENCH_SCALE, default 1: 3.1M facts; 3.2: ~10M). Each
// iteration calls every engine once, in an order rotating from one iteration
// to the next, so that a busy neighbour slows all alike. It reports each
// engine's time per call and its ratio to DuckDB's. The copies are loaded once
// and reused while their dataset rows match DuckDB's: PostgreSQL schema and
// ClickHouse database adsmcp_bench_<scale>, and the DuckDB file
// $ADSMCP_BENCH_DB (default $TMPDIR/adsmcp-bench-full.duckdb, with
// -scale<scale> before the extension when the scale is not 1).
func BenchmarkEngines(b *testing.B) {
	engines := openEngines(b)
	duck := engines[0].src
	ctx := context.Background()
	accounts, err := duck.Accounts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// The first 10 accounts of the scale-1 dataset (5 Google, 5 Meta) at every
	// scale: above 1 the replica accounts, listed after them, only add data
	// these queries prune away, as a bigger warehouse does.
	ids := make([]string, 0, 10)
	for _, a := range accounts {
		if len(ids) < 10 && !strings.HasPrefix(a.AccountName, "Replica ") {
			ids = append(ids, strconv.Quote(a.AccountID))
		}
	}
	all := `"account_ids":[` + strings.Join(ids, ",") + `]`
	queries := []struct{ name, raw string }{
		// The flagship: daily × campaign_name, 90 days, 10 accounts.
		{"flagship", `{` + all + `,"date_preset":"last_90d","dimensions":["campaign_name"],
			"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`},
		// A total per account: spend, clicks, ctr by account_name, 90 days, the same 10 accounts.
		{"account_total", `{` + all + `,"date_preset":"last_90d","dimensions":["account_name"],
			"metrics":["spend","clicks","ctr"]}`},
		// Two years monthly × campaign: every fact of the 10 accounts.
		{"monthly_2y", `{` + all + `,"date_range":{"start":"2024-03-15","end":"2026-03-14"},"dimensions":["campaign_name"],
			"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"monthly"}`},
	}
	for _, qq := range queries {
		b.Run("query="+qq.name, func(b *testing.B) {
			q, err := query.ParseAndNormalize([]byte(qq.raw), query.Options{Accounts: accounts,
				Now: func() time.Time { return engineAnchor.Add(12 * time.Hour) }})
			if err != nil {
				b.Fatal(err)
			}
			// The same answer from every engine, checked once outside the timing.
			var rows int
			for i, e := range engines {
				t, err := e.src.Query(ctx, q)
				if err != nil {
					b.Fatalf("%s: %v", e.name, err)
				}
				if i == 0 {
					rows = t.Len()
				} else if t.Len() != rows {
					b.Fatalf("duckdb returned %d rows, %s %d", rows, e.name, t.Len())
				}
			}
			spent := make([]time.Duration, len(engines))
			i := 0
			b.ResetTimer()
			for b.Loop() {
				for k := range engines {
					j := (i + k) % len(engines)
					t0 := time.Now()
					if _, err := engines[j].src.Query(ctx, q); err != nil {
						b.Fatal(err)
					}
					spent[j] += time.Since(t0)
				}
				i++
			}
			for j, e := range engines {
				b.ReportMetric(float64(spent[j].Nanoseconds())/float64(b.N), e.name+"-ns/op")
				if j > 0 {
					b.ReportMetric(float64(spent[j])/float64(spent[0]), e.name+"/duckdb")
				}
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}

type engine struct {
	name string
	src  source.Source
}

var (
	engineAnchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	enginesOnce  sync.Once
	engines      []engine
	enginesErr   error
)

func engineScale(b *testing.B) float64 {
	s := os.Getenv("ADSMCP_BENCH_SCALE")
	if s == "" {
		return 1
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > demo.MaxScale {
		b.Fatalf("ADSMCP_BENCH_SCALE=%q: want a number in (0, %d]", s, demo.MaxScale)
	}
	return f
}

func openEngines(b *testing.B) []engine {
	b.Helper()
	scale := engineScale(b)
	enginesOnce.Do(func() { engines, enginesErr = loadEngines(scale) })
	if enginesErr != nil {
		b.Fatal(enginesErr)
	}
	if len(engines) < 2 {
		skipreport.Skip(b, "neither ADSMCP_TEST_PG_DSN nor ADSMCP_TEST_CH_DSN is set; start servers with: "+
			`eval "$(bash .ci/setup-postgres)"; eval "$(bash .ci/setup-clickhouse)"`)
	}
	return engines
}

func loadEngines(scale float64) ([]engine, error) {
	ctx := context.Background()
	cfg := demo.Config{Anchor: engineAnchor, Seed: demo.DefaultSeed, Scale: scale}
	path := os.Getenv("ADSMCP_BENCH_DB")
	if path == "" {
		path = filepath.Join(os.TempDir(), "adsmcp-bench-full.duckdb")
	}
	tag := strings.ReplaceAll(strconv.FormatFloat(scale, 'f', -1, 64), ".", "_")
	if scale != 1 {
		path = strings.TrimSuffix(path, ".duckdb") + "-scale" + tag + ".duckdb"
	}
	t0 := time.Now()
	duck, err := duckdb.Open(ctx, path, duckdb.Options{Demo: cfg, Progress: os.Stderr})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "engines: DuckDB %s ready in %s\n", path, time.Since(t0).Round(100*time.Millisecond))
	want, err := duck.Dataset(ctx)
	if err != nil {
		return nil, err
	}
	out := []engine{{"duckdb", duck}}
	name := "adsmcp_bench_" + tag
	if dsn := os.Getenv("ADSMCP_TEST_PG_DSN"); dsn != "" {
		pg, err := loadPostgres(ctx, dsn, name, cfg, want)
		if err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		out = append(out, engine{"pg", pg})
	}
	if dsn := os.Getenv("ADSMCP_TEST_CH_DSN"); dsn != "" {
		ch, err := loadClickHouse(ctx, dsn, name, cfg, want)
		if err != nil {
			return nil, fmt.Errorf("clickhouse: %w", err)
		}
		out = append(out, engine{"ch", ch})
	}
	return out, nil
}

// same says whether a copy's dataset rows (complete=true included, written
// last by every loader) are the DuckDB file's.
func same(got, want map[string]string) bool {
	if got["complete"] != "true" {
		return false
	}
	g, w := maps.Clone(got), maps.Clone(want)
	delete(g, "complete")
	delete(w, "complete")
	return maps.Equal(g, w)
}

func loadPostgres(ctx context.Context, dsn, schema string, cfg demo.Config, want map[string]string) (*postgres.Source, error) {
	admin, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	pg, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.WithSearchPath(dsn, schema)})
	if err != nil {
		return nil, err
	}
	if got, err := pg.Dataset(ctx); err == nil && same(got, want) {
		fmt.Fprintf(os.Stderr, "engines: reusing PostgreSQL schema %s\n", schema)
		return pg, nil
	}
	if _, err := admin.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := postgres.LoadDemo(ctx, pg.Pool(), cfg, nil); err != nil {
		return nil, err
	}
	var facts int64
	if err := pg.Pool().QueryRow(ctx, `SELECT count(*) FROM facts`).Scan(&facts); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "engines: loaded %d facts into PostgreSQL schema %s in %s\n",
		facts, schema, time.Since(t0).Round(100*time.Millisecond))
	return pg, nil
}

func loadClickHouse(ctx context.Context, dsn, database string, cfg demo.Config, want map[string]string) (*clickhouse.Source, error) {
	dsn = chtest.WithDatabase(dsn, database)
	if err := clickhouse.CreateDatabase(ctx, dsn); err != nil {
		return nil, err
	}
	ch, err := clickhouse.Open(ctx, clickhouse.Options{DSN: dsn})
	if err != nil {
		return nil, err
	}
	if got, err := ch.Dataset(ctx); err == nil && same(got, want) {
		fmt.Fprintf(os.Stderr, "engines: reusing ClickHouse database %s\n", database)
		return ch, nil
	}
	if err := clickhouse.Drop(ctx, dsn); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := clickhouse.LoadDemo(ctx, dsn, cfg, nil); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "engines: loaded the demo (scale %g) into ClickHouse database %s in %s\n",
		cfg.Scale, database, time.Since(t0).Round(100*time.Millisecond))
	return ch, nil
}

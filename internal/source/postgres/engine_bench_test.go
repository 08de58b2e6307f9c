package postgres_test

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
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
)

// BenchmarkEngines runs the same queries on DuckDB and PostgreSQL holding the same
// demo warehouse (anchor 2026-03-15, default seed; $ADSMCP_BENCH_SCALE, default 1:
// the full 3.1M facts), each iteration calling both engines back to back in
// alternating order so that a busy neighbour slows both alike. It reports each
// engine's time per call and their ratio (pg/duckdb). Needs ADSMCP_TEST_PG_DSN
// (see .ci/setup-postgres). The PostgreSQL copy is loaded once into schema
// adsmcp_bench_<scale> and reused while its dataset rows match DuckDB's; the DuckDB
// copy is the duckdb package's benchmark file ($ADSMCP_BENCH_DB or
// $TMPDIR/adsmcp-bench-full.duckdb at scale 1). See docs/scaling.md.
func BenchmarkEngines(b *testing.B) {
	duck, pg := openEngines(b)
	ctx := context.Background()
	accounts, err := duck.Accounts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 0, 10)
	for _, a := range accounts[:min(10, len(accounts))] {
		ids = append(ids, strconv.Quote(a.AccountID))
	}
	all := `"account_ids":[` + strings.Join(ids, ",") + `]`
	queries := []struct{ name, raw string }{
		// The flagship: daily × campaign_name, 90 days, 10 accounts.
		{"flagship", `{` + all + `,"date_preset":"last_90d","dimensions":["campaign_name"],
			"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`},
		// A total per account: spend, clicks, ctr by account_name, 90 days, the same 10 accounts.
		{"account_total", `{` + all + `,"date_preset":"last_90d","dimensions":["account_name"],
			"metrics":["spend","clicks","ctr"]}`},
	}
	for _, qq := range queries {
		b.Run("query="+qq.name, func(b *testing.B) {
			q, err := query.ParseAndNormalize([]byte(qq.raw), query.Options{Accounts: accounts,
				Now: func() time.Time { return engineAnchor.Add(12 * time.Hour) }})
			if err != nil {
				b.Fatal(err)
			}
			// Same answer from both, checked once outside the timing.
			td, err := duck.Query(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			tp, err := pg.Query(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			if td.Len() != tp.Len() {
				b.Fatalf("duckdb returned %d rows, postgres %d", td.Len(), tp.Len())
			}
			var dDuck, dPG time.Duration
			i := 0
			b.ResetTimer()
			for b.Loop() {
				for k := range 2 {
					if (i+k)%2 == 0 {
						t0 := time.Now()
						if _, err := duck.Query(ctx, q); err != nil {
							b.Fatal(err)
						}
						dDuck += time.Since(t0)
					} else {
						t0 := time.Now()
						if _, err := pg.Query(ctx, q); err != nil {
							b.Fatal(err)
						}
						dPG += time.Since(t0)
					}
				}
				i++
			}
			b.ReportMetric(float64(dDuck.Nanoseconds())/float64(b.N), "duckdb-ns/op")
			b.ReportMetric(float64(dPG.Nanoseconds())/float64(b.N), "pg-ns/op")
			b.ReportMetric(float64(dPG)/float64(dDuck), "pg/duckdb")
			b.ReportMetric(float64(td.Len()), "rows")
		})
	}
}

var (
	engineAnchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	enginesOnce  sync.Once
	enginesDuck  *duckdb.Source
	enginesPG    *postgres.Source
	enginesErr   error
)

func engineScale(b *testing.B) float64 {
	s := os.Getenv("ADSMCP_BENCH_SCALE")
	if s == "" {
		return 1
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1 {
		b.Fatalf("ADSMCP_BENCH_SCALE=%q: want a number in (0, 1]", s)
	}
	return f
}

func openEngines(b *testing.B) (*duckdb.Source, *postgres.Source) {
	b.Helper()
	dsn := os.Getenv("ADSMCP_TEST_PG_DSN")
	if dsn == "" {
		b.Skip("ADSMCP_TEST_PG_DSN is not set; start a server with: eval \"$(bash .ci/setup-postgres)\"")
	}
	scale := engineScale(b)
	enginesOnce.Do(func() {
		enginesDuck, enginesPG, enginesErr = loadEngines(b, dsn, scale)
	})
	if enginesErr != nil {
		b.Fatal(enginesErr)
	}
	return enginesDuck, enginesPG
}

func loadEngines(b *testing.B, dsn string, scale float64) (*duckdb.Source, *postgres.Source, error) {
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
	duck, err := duckdb.Open(ctx, path, duckdb.Options{Demo: cfg, Progress: os.Stderr})
	if err != nil {
		return nil, nil, err
	}
	want, err := duck.Dataset(ctx)
	if err != nil {
		return nil, nil, err
	}

	schema := "adsmcp_bench_" + tag
	admin, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	defer admin.Close()
	pg, err := postgres.Open(ctx, postgres.Options{DSN: postgres.WithSearchPath(dsn, schema)})
	if err != nil {
		return nil, nil, err
	}
	// The dataset marker: the schema is reused when its dataset rows (complete=true
	// included, written last by Load) are DuckDB's.
	if got, err := pg.Dataset(ctx); err == nil && got["complete"] == "true" {
		delete(got, "complete")
		w := maps.Clone(want)
		delete(w, "complete")
		if maps.Equal(got, w) {
			fmt.Fprintf(os.Stderr, "engines: reusing PostgreSQL schema %s\n", schema)
			return duck, pg, nil
		}
	}
	if _, err := admin.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		return nil, nil, err
	}
	t0 := time.Now()
	if err := postgres.LoadDemo(ctx, pg.Pool(), cfg); err != nil {
		return nil, nil, err
	}
	var facts int64
	if err := pg.Pool().QueryRow(ctx, `SELECT count(*) FROM facts`).Scan(&facts); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "engines: loaded %d facts into PostgreSQL schema %s in %s (scale %g)\n",
		facts, schema, time.Since(t0).Round(100*time.Millisecond), scale)
	return duck, pg, nil
}

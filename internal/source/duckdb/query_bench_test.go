package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
)

// The benchmarks run on the FULL demo warehouse (fixed anchor and seed), built once
// into $ADSMCP_BENCH_DB (default: a file in the temp directory) and reused by later
// runs. See docs/benchmarks.md.
var (
	benchAnchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	benchOnce   sync.Once
	benchSource *Source
	benchErr    error
)

func openBenchSource(b *testing.B) *Source {
	b.Helper()
	benchOnce.Do(func() {
		path := os.Getenv("ADSMCP_BENCH_DB")
		if path == "" {
			path = filepath.Join(os.TempDir(), "adsmcp-bench-full.duckdb")
		}
		benchSource, benchErr = Open(context.Background(), path, Options{
			Demo:     demo.Config{Anchor: benchAnchor, Seed: demo.DefaultSeed},
			Progress: os.Stderr,
		})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSource
}

func benchQuery(b *testing.B, raw string) {
	src := openBenchSource(b)
	accounts, err := src.Accounts(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts,
		Now: func() time.Time { return benchAnchor.Add(12 * time.Hour) }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rows := 0
	b.ResetTimer()
	for b.Loop() {
		t, err := src.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		rows = t.Len()
	}
	b.ReportMetric(float64(rows), "rows")
}

// BenchmarkFlagshipQuery: daily × campaign over 90 days for 10 accounts, the
// seed's "too big" example — thousands of rows.
func BenchmarkFlagshipQuery(b *testing.B) {
	ids := firstTenAccounts(b)
	benchQuery(b, `{"account_ids":[`+ids+`],"date_preset":"last_90d","dimensions":["campaign_name"],
		"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`)
}

// BenchmarkAccountSpend: total spend per account over the last 30 days for one
// platform — the everyday small question.
func BenchmarkAccountSpend(b *testing.B) {
	benchQuery(b, `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["account_name"],"metrics":["spend"]}`)
}

// BenchmarkBaselineFullScan sums one column over every fact row: the machine's
// speed for this warehouse, against which the query figures are read as ratios.
func BenchmarkBaselineFullScan(b *testing.B) {
	src := openBenchSource(b)
	var total float64
	for b.Loop() {
		if err := src.DB().QueryRow(`SELECT SUM(spend_micros)::DOUBLE FROM facts`).Scan(&total); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopNQuery: the flagship query as a top-N — the 50 campaign-days
// with the most spend. The limit ranks in SQL (ROW_NUMBER) so that rows with
// no campaign take no place in the top N (sqlgen's limitSQL).
func BenchmarkTopNQuery(b *testing.B) {
	ids := firstTenAccounts(b)
	benchQuery(b, `{"account_ids":[`+ids+`],"date_preset":"last_90d","dimensions":["campaign_name"],
		"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily",
		"sort":[{"field":"spend","direction":"desc"}],"limit":50}`)
}

// firstTenAccounts is the JSON list of the first 10 accounts' IDs, the most a
// query takes.
func firstTenAccounts(b *testing.B) string {
	accounts, _ := openBenchSource(b).Accounts(context.Background())
	ids := ""
	for i, a := range accounts[:10] {
		if i > 0 {
			ids += ","
		}
		ids += `"` + a.AccountID + `"`
	}
	return ids
}

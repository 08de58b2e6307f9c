package live

import (
	"context"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// BenchmarkStaging: what staging fetched rows in an in-memory warehouse costs
// per query, against the same query on the warehouse file (the baseline, same
// run). The fake connectors hand over rows from memory, so the difference is
// the staging: opening DuckDB in memory, the bulk load, the query — staged
// minus fetch-only (the fake's own work of picking rows from memory).
func BenchmarkStaging(b *testing.B) {
	m, g, tt := connectors(b)
	src := New(nil, m, g, tt)
	wh := duckdbtest.Open(b)
	accounts, err := src.Accounts(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, raw string }{
		{"totals-7d", `{"metrics":["spend","clicks","ctr"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_7d"}`},
		{"campaign-daily-90d", `{"metrics":["spend","clicks","ctr","conversions"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_90d"}`},
	} {
		q, err := normalizeQuery(accounts, c.raw)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/warehouse", func(b *testing.B) {
			for b.Loop() {
				if _, err := wh.Query(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/fetch-only", func(b *testing.B) {
			for b.Loop() {
				if err := Fetch(context.Background(), m, q, q.Accounts, NewBatch()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/staged", func(b *testing.B) {
			for b.Loop() {
				if _, err := src.Query(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

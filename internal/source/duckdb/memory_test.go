package duckdb

import (
	"bytes"
	"context"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
)

// TestMemoryAnswersLikeTheFile: the same rows loaded into an in-memory
// warehouse answer every query shape exactly as the warehouse file does.
func TestMemoryAnswersLikeTheFile(t *testing.T) {
	file := openTestSource(t)
	mem, err := OpenMemory(context.Background(), func(ctx context.Context, sink ads.Sink) error {
		return demo.Generate(ctx, testConfig, sink, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	for _, raw := range []string{
		`{"metrics":["spend","clicks","ctr","roas"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_90d"}`,
		`{"metrics":["spend","reach","frequency"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-12-01","end":"2026-02-28"}}`,
		`{"metrics":["spend","conversions","cpa"],"dimensions":["campaign_name","country"],"platforms":["google_ads"],"time_granularity":"weekly","date_preset":"last_30d","filters":[{"field":"spend","operator":"GREATER_THAN","value":10}],"sort":[{"field":"spend"}],"limit":20}`,
	} {
		q := normalize(t, file, raw)
		want, err := file.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := fit.WriteCSV(&a, want); err != nil {
			t.Fatal(err)
		}
		fit.WriteCSV(&b, got)
		if a.String() != b.String() || got.RowsBeforeLimit != want.RowsBeforeLimit || want.Len() == 0 {
			t.Errorf("%s: memory differs from the file (%d vs %d rows)", raw, got.Len(), want.Len())
		}
	}
}

// BenchmarkOpenMemoryEmpty is the fixed part of staging a live query: opening
// an in-memory DuckDB, creating the schema and the loader's staging tables,
// with no rows (docs/benchmarks.md, "Live sources").
func BenchmarkOpenMemoryEmpty(b *testing.B) {
	for b.Loop() {
		m, err := OpenMemory(context.Background(), func(context.Context, ads.Sink) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}

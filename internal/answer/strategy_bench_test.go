package answer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// slowSource is a source whose every query costs a fixed delay, like an ad
// platform's API, and that counts its calls.
type slowSource struct {
	source.Source
	delay time.Duration
	calls int
}

func (s *slowSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	s.calls++
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Source.Query(ctx, q)
}

func (s *slowSource) Accounts(ctx context.Context) ([]ads.Account, error) {
	return s.Source.Accounts(ctx)
}

// seedStrategy is the seed write-up's pipeline: one source call per grain, tokens
// estimated as characters × 0.3, until a grain "fits".
func seedStrategy(ctx context.Context, src source.Source, q *query.Query, budget int) (fit.Grain, string, error) {
	for _, g := range fit.Grains[1+indexOf(fit.Grains, q.Grain)-1:] {
		q2 := *q
		q2.Grain = g
		t, err := src.Query(ctx, &q2)
		if err != nil {
			return "", "", err
		}
		var buf bytes.Buffer
		if err := fit.WriteCSV(&buf, t); err != nil {
			return "", "", err
		}
		if float64(buf.Len())*0.3 <= float64(budget) {
			return g, buf.String(), nil
		}
	}
	return "summary", "", nil
}

func indexOf(gs []fit.Grain, g fit.Grain) int {
	for i, x := range gs {
		if x == g {
			return i
		}
	}
	return 0
}

// BenchmarkSourceCallsSeedVsOurs: the flagship query (daily × campaign, 90 days,
// 10 accounts) on the full demo warehouse behind a source that costs
// ADSMCP_BENCH_DELAY (default 2s) per call, for a claude-ai budget.
func BenchmarkSourceCallsSeedVsOurs(b *testing.B) {
	path := os.Getenv("ADSMCP_BENCH_DB")
	if path == "" {
		path = filepath.Join(os.TempDir(), "adsmcp-bench-full.duckdb")
	}
	bench := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	full, err := duckdb.Open(context.Background(), path, duckdb.Options{Demo: demo.Config{Anchor: bench, Seed: demo.DefaultSeed}, Progress: os.Stderr})
	if err != nil {
		b.Fatal(err)
	}
	defer full.Close()
	delay := 2 * time.Second
	if d, err := time.ParseDuration(os.Getenv("ADSMCP_BENCH_DELAY")); err == nil {
		delay = d
	}
	accounts, _ := full.Accounts(context.Background())
	ids := `"` + accounts[0].AccountID + `"`
	for _, a := range accounts[1:10] {
		ids += `,"` + a.AccountID + `"`
	}
	args := []byte(`{"account_ids":[` + ids + `],"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`)
	now := func() time.Time { return bench.Add(12 * time.Hour) }
	b.Run("seed", func(b *testing.B) {
		slow := &slowSource{Source: full, delay: delay}
		q, err := query.ParseAndNormalize(args, query.Options{Accounts: accounts, Now: now})
		if err != nil {
			b.Fatal(err)
		}
		var g fit.Grain
		var text string
		for b.Loop() {
			if g, text, err = seedStrategy(context.Background(), slow, q, 30000); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(slow.calls)/float64(b.N), "source-calls")
		b.ReportMetric(float64(fit.NewO200k().Exact(text)), "o200k-tokens")
		b.Logf("seed strategy returned grain %s: %d chars, chars×0.3 = %.0f, o200k = %d (budget 30000)", g, len(text), float64(len(text))*0.3, fit.NewO200k().Exact(text))
	})
	b.Run("ours", func(b *testing.B) {
		slow := &slowSource{Source: full, delay: delay}
		e := &Engine{Source: slow, Now: now}
		var res *Result
		for b.Loop() {
			if res, err = e.Query(context.Background(), Request{Args: args, Client: "claude-ai"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(slow.calls)/float64(b.N), "source-calls")
		n := 0
		for _, blk := range res.Blocks {
			n += fit.NewO200k().Exact(blk)
		}
		b.ReportMetric(float64(n), "o200k-tokens")
		b.Logf("ours returned %s at %s: %d o200k tokens (claude-ai budget 30000, fitted to %d)", res.Response.Kind, res.Response.Meta.TimeGranularity.Returned, n, 25500)
	})
}

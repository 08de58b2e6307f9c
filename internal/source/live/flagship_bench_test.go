package live_test

import (
	"context"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
)

// BenchmarkLiveFlagship answers the seed's flagship (ten accounts, five Meta
// and five Google, daily × campaign_name, 60 days) and a narrower follow-up
// over the platforms' fake APIs on loopback, as the server runs them: the
// cost of planning, fetching, parsing and staging per tool call, and the
// requests each call makes (requests/op). It uses only the packages' public
// API, so the same file runs on an older commit: docs/benchmarks.md compares
// the two in one run.
func BenchmarkLiveFlagship(b *testing.B) {
	f := startFakes(b)
	for _, c := range []struct{ name, args string }{
		{"daily", flagship(fit.Daily)},
		{"weekly", flagship(fit.Weekly)},
		{"total", flagship(fit.Total)},
	} {
		b.Run(c.name, func(b *testing.B) {
			requests := 0
			for b.Loop() {
				f.meta.ClearRequests()
				before, tokens := len(f.google.Requests()), f.google.TokenRequests()
				res, err := f.engine.Query(context.Background(), answer.Request{Args: []byte(c.args), Client: "claude-ai", Budget: 200000})
				if err != nil || res.Response == nil {
					b.Fatalf("%v %v", err, res.Blocks)
				}
				requests += len(f.meta.Requests()) + len(f.google.Requests()) - before + f.google.TokenRequests() - tokens
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
		})
	}
}

package synced_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/synced"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
	"github.com/adsmcp/adsmcp/internal/syncer"
)

// BenchmarkSyncedVsLive answers the flagship (ten accounts, daily ×
// campaign_name, the last 90 days) and the narrower follow-up its own answer
// suggests, for a claude-ai client, from a DuckDB warehouse a sync filled
// from the fakes (synced.Source, the server's default) and live over the same
// fakes with a latency per request (ADSMCP_BENCH_LATENCY, default 1s, as the
// issue's live figures were measured). Each iteration asks both, one after
// the other, so the ratio live ÷ synced is of the same run; requests/op are
// the requests the fakes received during each answer. The sync itself runs
// before the latency is turned on (its cost is BenchmarkSync's, in
// internal/syncer). The ten accounts are taken in turn from every platform
// whose sync plans compile (livetest.Fakes.Syncable): the others are named in
// the log, and join once their sync works.
func BenchmarkSyncedVsLive(b *testing.B) {
	ctx := context.Background()
	latency := time.Second
	if s := os.Getenv("ADSMCP_BENCH_LATENCY"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatalf("ADSMCP_BENCH_LATENCY: %v", err)
		}
		latency = d
	}
	var wait atomic.Int64
	serving := fakescale.Serving{Wrap: fakescale.Latency(func() time.Duration { return time.Duration(wait.Load()) })}
	// Five accounts per platform over 120 days: ten accounts from two
	// platforms, or from three.
	scale := &fakescale.Scale{Accounts: 5, Days: 120, Seed: 42, Anchor: duckdbtest.Anchor}
	f := livetest.Start(b, livetest.Config{
		Meta:   metatest.Config{Scale: scale, Serving: serving},
		Google: googleadstest.Config{Scale: scale, Serving: serving},
		TikTok: tiktoktest.Config{Scale: scale, Serving: serving},
	})
	platforms, refused := f.Syncable()
	for p, err := range refused {
		b.Logf("%s is not synced (its accounts are left out): %v", p, err)
	}
	accts := f.Accounts(ctx, b, platforms, 10)
	ids := make([]string, len(accts))
	for i, a := range accts {
		ids[i] = a.AccountID
	}
	first, last := duckdbtest.Anchor.AddDate(0, 0, -90), duckdbtest.Anchor.AddDate(0, 0, -1)

	wh, err := duckdb.OpenWritable(ctx, filepath.Join(b.TempDir(), "synced.duckdb"), duckdb.Options{NoDemoFill: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wh.Close() })
	tg, err := wh.SyncTarget(importer.SyncOptions{Now: duckdbtest.Now})
	if err != nil {
		b.Fatal(err)
	}
	res, err := syncer.Run(ctx, syncer.Options{Connectors: f.Connectors, Target: tg, Accounts: ids, Now: duckdbtest.Now, Since: first})
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed() > 0 {
		b.Fatalf("sync: %+v", res.Accounts)
	}

	// Every answer lists the accounts first. The server keeps the list,
	// refreshed in the background (docs/mcp.md); the engine alone lists them
	// on every call, live on both sides (synced.Source lists what the
	// credentials reach now). Both sides here answer from a list taken once,
	// as the server does; what a listing costs is reported apart
	// (listing-s, listing-requests).
	accounts, err := f.Source().Accounts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	liveSrc := &listed{Source: f.Source(), accounts: accounts}
	engines := []struct {
		name   string
		engine *answer.Engine
	}{
		{"synced", &answer.Engine{Source: &listedSynced{Source: &synced.Source{Warehouse: wh, Live: liveSrc, States: wh.SyncStates}, accounts: accounts},
			Now: duckdbtest.Now}},
		{"live", &answer.Engine{Source: liveSrc, Now: duckdbtest.Now}},
	}
	flagship := `{"account_ids":["` + strings.Join(ids, `","`) + `"],"date_range":{"start":"` + first.Format(time.DateOnly) +
		`","end":"` + last.Format(time.DateOnly) + `"},"dimensions":["campaign_name"],` +
		`"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`
	ask := func(b *testing.B, e *answer.Engine, args string) (*answer.Result, int) {
		before := f.Requests()
		r, err := e.Query(ctx, answer.Request{Args: []byte(args), Client: "claude-ai"})
		if err != nil || r.IsError {
			b.Fatalf("%s: %v %v", args, err, r.Blocks)
		}
		return r, f.Requests() - before
	}
	// The follow-up is the first ready-to-run query the flagship's answer
	// offers (a suggestion or an alternative), taken from the synced answer.
	r, _ := ask(b, engines[0].engine, flagship)
	followUp := firstQuery(r.Blocks[0])
	if !strings.Contains(r.Blocks[0], `"from":"synced"`) {
		b.Fatalf("the synced answer is not from the synced warehouse: %s", r.Blocks[0])
	}
	if followUp == "" {
		b.Fatalf("the flagship's answer suggests no query: %s", r.Blocks[0])
	}
	b.Logf("accounts %v; flagship answered %s; follow-up %s", ids, r.Report.Outcome, followUp)

	// The listing's cost, behind the latency.
	wait.Store(int64(latency))
	before, start := f.Requests(), time.Now()
	if _, err := f.Source().Accounts(ctx); err != nil {
		b.Fatal(err)
	}
	listingTook, listingRequests := time.Since(start), f.Requests()-before

	for _, c := range []struct{ name, args string }{{"flagship", flagship}, {"followup", followUp}} {
		b.Run(c.name, func(b *testing.B) {
			var took [2]time.Duration
			var requests [2]int
			for b.Loop() {
				for i, e := range engines {
					start := time.Now()
					_, n := ask(b, e.engine, c.args)
					took[i] += time.Since(start)
					requests[i] += n
				}
			}
			n := float64(b.N)
			for i, e := range engines {
				b.ReportMetric(took[i].Seconds()/n, e.name+"-s/op")
				b.ReportMetric(float64(requests[i])/n, e.name+"-requests/op")
			}
			b.ReportMetric(listingTook.Seconds(), "listing-s")
			b.ReportMetric(float64(listingRequests), "listing-requests")
			b.ReportMetric(float64(took[1])/float64(took[0]), "live/synced")
		})
	}
}

// listed is the live source answering Accounts from a list taken once, as
// the server's account cache does; every other method is the live source's.
type listed struct {
	*live.Source
	accounts []ads.Account
}

func (l *listed) Accounts(context.Context) ([]ads.Account, error) { return l.accounts, nil }

// listedSynced is the synced source answering Accounts from a list taken
// once; every other method is synced.Source's.
type listedSynced struct {
	*synced.Source
	accounts []ads.Account
}

func (l *listedSynced) Accounts(context.Context) ([]ads.Account, error) { return l.accounts, nil }

// firstQuery is the first ready-to-run query the answer offers: the first
// alternative in its _meta (a coarsened answer), or the first suggestion of a
// data_too_large answer.
func firstQuery(block string) string {
	var a struct {
		Meta struct {
			Alternatives []struct{ Query json.RawMessage } `json:"alternatives"`
		} `json:"_meta"`
		Requery struct {
			Suggestions []struct{ Query json.RawMessage } `json:"suggestions"`
		} `json:"requery_instructions"`
	}
	if json.Unmarshal([]byte(block), &a) != nil {
		return ""
	}
	switch {
	case len(a.Meta.Alternatives) > 0:
		return string(a.Meta.Alternatives[0].Query)
	case len(a.Requery.Suggestions) > 0:
		return string(a.Requery.Suggestions[0].Query)
	}
	return ""
}

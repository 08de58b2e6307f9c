package oracle

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/answer"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	syncedpkg "github.com/adsmcp/adsmcp/internal/source/synced"
	"github.com/adsmcp/adsmcp/internal/syncer"
)

var flagSource = flag.String("oracle.source", "warehouse",
	"what the engine answers from: warehouse (the embedded DuckDB test warehouse), live (the live source over the Meta, Google and TikTok fake APIs, which serve the same demo data) or synced (a DuckDB warehouse that adsmcp sync filled from those fakes, answering live what it does not hold, as the server does)")

// engineSource is the source the engine under test answers from
// (-oracle.source). The oracle's own figures come from the demo data itself
// either way (Load), so a live run checks the connectors, the fetch plan and
// the staging against the same ground truth as the warehouse.
func engineSource(t testing.TB) source.Source {
	t.Helper()
	switch *flagSource {
	case "warehouse":
		return duckdbtest.Open(t)
	case "live":
		return livetest.Start(t, livetest.Config{}).Source()
	case "synced":
		src, _ := syncedSource(t)
		return src
	}
	t.Fatalf("-oracle.source %q: want warehouse, live or synced", *flagSource)
	return nil
}

// liveSource says whether the engine answers what the platforms' APIs say:
// live, or from a warehouse a sync filled from them (which answers alike:
// the same rows, the same refusals).
func liveSource() bool { return *flagSource == "live" || *flagSource == "synced" }

var flagSyncedInto = flag.String("oracle.synced_into", "duckdb",
	"-oracle.source synced: the warehouse the sync fills: duckdb (a new file), postgres or clickhouse (a new schema or database on the servers of ADSMCP_TEST_PG_DSN and ADSMCP_TEST_CH_DSN)")

// syncedSource is what a server with ad platforms' credentials answers from
// by default: a DuckDB warehouse that a sync filled from the fakes (every
// day of the demo data, every account), and the live source for what it
// does not hold (an attribution window it does not store, days outside the
// sync).
func syncedSource(t testing.TB) (synced, live source.Source) {
	t.Helper()
	ctx := context.Background()
	f := livetest.Start(t, livetest.Config{})
	wh, tg := syncedWarehouse(t)
	res, err := syncer.Run(ctx, syncer.Options{Connectors: f.Connectors, Target: tg, Now: duckdbtest.Now,
		Since: duckdbtest.Anchor.AddDate(0, 0, -duckdbtest.Config.Days)})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Accounts {
		if a.Error != "" {
			t.Fatalf("syncing %s %s: %s (%s)", a.Platform, a.AccountID, a.Error, a.Fix)
		}
	}
	return &syncedpkg.Source{Warehouse: wh, Live: f.Source(), States: wh.SyncStates}, f.Source()
}

// stateful is a warehouse that says what a sync wrote into it.
type stateful interface {
	source.Source
	SyncStates(ctx context.Context) ([]importer.SyncState, error)
}

// syncedWarehouse is a new, empty warehouse of -oracle.synced_into, and a
// sync target writing into it.
func syncedWarehouse(t testing.TB) (stateful, importer.SyncTarget) {
	t.Helper()
	ctx := context.Background()
	opt := importer.SyncOptions{Now: duckdbtest.Now}
	switch *flagSyncedInto {
	case "duckdb":
		wh, err := duckdb.OpenWritable(ctx, filepath.Join(t.TempDir(), "synced.duckdb"), duckdb.Options{NoDemoFill: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wh.Close() })
		tg, err := wh.SyncTarget(opt)
		if err != nil {
			t.Fatal(err)
		}
		return wh, tg
	case "postgres":
		dsn := pgtest.FreshSchema(t, "oracle_synced")
		tg, err := postgres.Plugin.Target.OpenSync(ctx, dsn, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		wh, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wh.Close() })
		return wh, tg
	case "clickhouse":
		dsn := chtest.FreshDatabase(t)
		tg, err := clickhouse.Plugin.Target.OpenSync(ctx, dsn, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		wh, err := clickhouse.Open(ctx, clickhouse.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wh.Close() })
		return wh, tg
	}
	t.Fatalf("-oracle.synced_into %q: want duckdb, postgres or clickhouse", *flagSyncedInto)
	return nil, nil
}

// asLive makes the data what the live connectors can say of it where they
// cannot say what the demo data holds:
//   - a TikTok advertiser's attribution is each ad group's own (its API has
//     no account setting; docs/tiktok.md, "Conversions"), so its
//     conversions are grouped under per_ad_group;
//   - TikTok reports no tablets: its platform dimension is ANDROID, IOS or
//     PC, mobile or desktop (docs/tiktok.md, "Breakdowns");
//   - TikTok reports each conversion event as metrics of a campaign's row:
//     an event with no count and no value has no conversion_action row
//     (docs/tiktok.md, "Conversion actions");
//   - a Google customer's conversion actions are listed in name order.
func (d *Data) asLive() {
	w := catalog.PerAdGroupWindow
	d.lowers[w] = w
	for id, a := range d.Accounts {
		switch a.Platform {
		case catalog.GoogleAds:
			names := strings.Split(a.ConversionActions, ", ")
			slices.Sort(names)
			a.ConversionActions = strings.Join(names, ", ")
		case catalog.TikTokAds:
			a.AttributionWindow = w
			fix := func(fs []Fact) {
				for i := range fs {
					fs[i].Dims[19] = w
					if fs[i].Dims[13] == "tablet" {
						fs[i].Dims[13] = "mobile"
					}
				}
			}
			fix(d.Facts[id])
			for _, byAcct := range d.Sets {
				fix(byAcct[id])
			}
			if byAcct := d.Sets["conversion_action"]; byAcct != nil {
				byAcct[id] = slices.DeleteFunc(byAcct[id], func(f Fact) bool {
					return f.Sums.Measures[catalog.Conversions] == 0 && f.Sums.Measures[catalog.ConversionValue] == 0
				})
			}
		}
		d.Accounts[id] = a
	}
}

// unmodelledLive says why the oracle cannot tell a live answer's numbers
// ("" when it can): Meta recounts conversions under a window the accounts
// do not hold, which the demo data the oracle reads does not carry.
func unmodelledLive(d *Data, args []byte) string {
	if !liveSource() {
		return ""
	}
	c := callOf(d, args)
	w, ok := CanonicalWindow(c.Window)
	if c.Window == "" || !ok || w == "" {
		return ""
	}
	for _, a := range c.Accounts {
		if a.Platform == metaAds && a.AttributionWindow != w {
			return "Meta recounted under " + w
		}
	}
	return ""
}

// checkNoSourceError: no call fails at the source.
func checkNoSourceError(_ *Data, c *tcase) []string {
	if c.head.Type != "source_error" && c.head.Type != "internal_error" {
		return nil
	}
	return []string{fmt.Sprintf("[%s] %.300s", c.head.Type, c.head.Detail)}
}

// warehouseOnly skips a test of what only a warehouse does (its size-first
// path, the one window it holds per account) or of the demo data itself,
// when the engine answers live.
func warehouseOnly(t *testing.T) {
	t.Helper()
	if liveSource() {
		t.Skip("-oracle.source live: a test of the warehouse or of the demo data itself")
	}
}

// logProvenance counts the answers by where their rows came from
// (_meta.data_source.from), and, answering from a synced warehouse, fails
// when none came from it: the mode would then check the live source alone.
func logProvenance(t *testing.T, cases []*tcase) {
	from := map[string]int{}
	for _, c := range cases {
		if c.res == nil || len(c.res.Blocks) == 0 {
			continue
		}
		var h struct {
			Meta struct {
				Source json.RawMessage `json:"data_source"`
			} `json:"_meta"`
		}
		json.Unmarshal([]byte(c.res.Blocks[0]), &h)
		var one struct {
			From string `json:"from"`
		}
		var many []struct {
			From string `json:"from"`
		}
		switch {
		case len(h.Meta.Source) == 0:
			from["(not said)"]++
		case json.Unmarshal(h.Meta.Source, &one) == nil:
			from[one.From]++
		case json.Unmarshal(h.Meta.Source, &many) == nil:
			from["several"]++
		}
	}
	t.Logf("answers by data source: %v", from)
	if *flagSource == "synced" && from[source.FromSynced] == 0 {
		t.Errorf("-oracle.source synced: no answer came from the synced warehouse: %v", from)
	}
}

// TestSyncedAnswersAsLive runs the random queries, and the comparisons,
// through a synced warehouse and through the live source over the same fake
// APIs: every answer must say the same (essence) — the same CSV, the same
// warnings and refusals — but for where it says its rows came from.
func TestSyncedAnswersAsLive(t *testing.T) {
	if *flagSource != "synced" {
		t.Skip("-oracle.source synced compares a synced warehouse with the live source")
	}
	d := oracleData(t)
	syncedSrc, liveSrc := syncedSource(t)
	se := &answer.Engine{Source: syncedSrc, Now: duckdbtest.Now}
	le := &answer.Engine{Source: liveSrc, Now: duckdbtest.Now}
	g := newGen(*flagSeed, d)
	var args [][]byte
	var clients []*call
	for range *flagCases {
		c := g.next()
		args, clients = append(args, c.JSON()), append(clients, c)
	}
	for range *flagCompareCases {
		c := g.nextCompare()
		args, clients = append(args, c.JSON()), append(clients, c)
	}
	differ := 0
	for i, a := range args {
		req := answer.Request{Args: a, Client: clients[i].Client, Budget: clients[i].Budget}
		sr, err := se.Query(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		lr, err := le.Query(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		sb, lb := essence(sr.Blocks), essence(lr.Blocks)
		if !slices.Equal(sb, lb) {
			differ++
			if differ <= 3 {
				js, jl := strings.Join(sb, "\n"), strings.Join(lb, "\n")
				at := 0
				for at < len(js) && at < len(jl) && js[at] == jl[at] {
					at++
				}
				from := max(0, at-300)
				t.Errorf("#%d %s: the synced warehouse and the live source answer differently, from byte %d:\nsynced: …%.900s\nlive:   …%.900s", i, a, at, js[from:], jl[from:])
			}
		}
	}
	t.Logf("%d calls, %d answered differently", len(args), differ)
}

// essence is what an answer says, for comparing two sources' answers: its
// kind, refusals, warnings, optimizations, grain, summary and CSV — not
// what says what it cost or where its rows came from, nor what only fits or
// not by a few tokens (_meta.data_source takes tokens of its own, so a
// synced answer may shed an alternative, its query echo, or offer a smaller
// limit in a suggestion where the live one does not): token estimates,
// alternatives, the echo, the suggestions.
func essence(blocks []string) []string {
	out := slices.Clone(blocks)
	for i, b := range blocks {
		var v map[string]any
		if json.Unmarshal([]byte(b), &v) != nil {
			continue // the CSV
		}
		if m, ok := v["_meta"].(map[string]any); ok {
			for _, k := range []string{"data_source", "source_calls", "elapsed_ms", "alternatives", "query", "token_budget"} {
				delete(m, k)
			}
			if opts, ok := m["optimizations_applied"].([]any); ok {
				m["optimizations_applied"] = slices.DeleteFunc(opts, func(o any) bool {
					om, _ := o.(map[string]any)
					return om["type"] == "query_echo_omitted"
				})
			}
		}
		delete(v, "requery_instructions")
		dropKey(v, "token_estimate")
		j, _ := json.Marshal(v)
		out[i] = string(j)
	}
	return out
}

// dropKey deletes key from v at every depth.
func dropKey(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for _, y := range x {
			dropKey(y, key)
		}
	case []any:
		for _, y := range x {
			dropKey(y, key)
		}
	}
}

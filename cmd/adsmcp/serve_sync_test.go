package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
	"github.com/adsmcp/adsmcp/internal/syncer"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// The fakes serve the test warehouse's data, which ends the day before
// duckdbtest.Anchor; the server's clock is that day.
const syncToday = "2026-03-15"

// fakesConfig is a config file's sources: over every platform's fake, then
// extra.
func fakesConfig(f *livetest.Fakes, extra string) string {
	return fmt.Sprintf(`
sources:
  meta: {access_token: %q, base_url: %q, requests_per_second: 5000}
  google_ads: {client_id: %q, client_secret: %q, refresh_token: %q, base_url: %q, token_url: %q, requests_per_second: 5000}
  tiktok: {access_token: %q, app_id: %q, app_secret: %q, base_url: %q, requests_per_second: 5000}
`, f.Meta.Token(), f.Meta.URL, googleadstest.ClientID, googleadstest.ClientSecret, googleadstest.RefreshToken, f.Google.URL, f.Google.TokenURL,
		f.TikTok.Token(), f.TikTok.AppID(), f.TikTok.AppSecret(), f.TikTok.URL) + extra
}

// servedFrom opens what serve would for the config text raw (with --today
// syncToday), and an MCP client over it, in process.
func servedFrom(t *testing.T, raw string, db string) (*served, *mcp.ClientSession) {
	t.Helper()
	f, err := config.Parse([]byte(raw), os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	now, err := clockFor(syncToday)
	if err != nil {
		t.Fatal(err)
	}
	g := &globals{cfg: f, db: db}
	if db != "" {
		g.dbFrom = "--db"
	}
	s, err := g.openServed(context.Background(), io.Discard, now, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clientOf(t, s.Source, now)
}

func clientOf(t *testing.T, src source.Source, now func() time.Time) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, stop := mcpserver.Open(mcpserver.Config{Source: src, Now: now, Deadline: time.Minute, MaxAccounts: 50})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); stop(ctx) })
	return cs
}

// toolAnswer is one query tool answer: its _meta and its CSV.
type toolAnswer struct {
	meta struct {
		DataSource json.RawMessage `json:"data_source"`
		Warnings   []struct {
			Type   string `json:"type"`
			Detail string `json:"detail"`
		} `json:"warnings"`
	}
	csv string
}

func (a toolAnswer) from() string {
	var p source.Provenance
	json.Unmarshal(a.meta.DataSource, &p)
	return p.From
}

func ask(cs *mcp.ClientSession, args string) (toolAnswer, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(args)})
	if err != nil {
		return toolAnswer{}, err
	}
	var blocks []string
	for _, c := range res.Content {
		blocks = append(blocks, c.(*mcp.TextContent).Text)
	}
	if res.IsError || len(blocks) < 2 {
		return toolAnswer{}, fmt.Errorf("an error toolAnswer: %s", strings.Join(blocks, "\n"))
	}
	var a toolAnswer
	var env struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(blocks[0]), &env); err != nil {
		return toolAnswer{}, err
	}
	if err := json.Unmarshal(env.Meta, &a.meta); err != nil {
		return toolAnswer{}, err
	}
	a.csv = blocks[len(blocks)-1]
	return a, nil
}

func mustAsk(t *testing.T, cs *mcp.ClientSession, args string) toolAnswer {
	t.Helper()
	a, err := ask(cs, args)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return a
}

// platformQuery asks one platform's spend and clicks per account and day.
func platformQuery(platform, start, end string) string {
	return fmt.Sprintf(`{"platforms":[%q],"metrics":["spend","clicks","impressions"],"dimensions":["account_id"],"time_granularity":"daily","date_range":{"start":%q,"end":%q}}`, platform, start, end)
}

// syncedPlatforms are the platforms whose every account the run synced; a
// platform refused (Meta and Google until their delivery set is modelled,
// docs/sync.md) is logged, and the tests of it are skipped.
func syncedPlatforms(t *testing.T, res *syncer.Result) []string {
	failed := map[string]string{}
	var ok []string
	for _, a := range res.Accounts {
		if a.Error != "" {
			failed[a.Platform] = a.Error
		}
	}
	for _, a := range res.Accounts {
		if _, bad := failed[a.Platform]; !bad && !slices.Contains(ok, a.Platform) {
			ok = append(ok, a.Platform)
		}
	}
	for p, e := range failed {
		t.Logf("%s: not synced (%s); its synced answers are not tested", p, e)
	}
	if !slices.Contains(ok, "tiktok_ads") {
		t.Fatalf("TikTok did not sync: %+v", res.Accounts)
	}
	return ok
}

// TestServerAnswersLiveThenFromTheSync: a server with the APIs and the
// default sync answers live before the backfill is written, then from the
// synced warehouse with each account's freshness: the same CSV both times.
func TestServerAnswersLiveThenFromTheSync(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes and syncs them")
	}
	fakes := livetest.Start(t, livetest.Config{})
	s, cs := servedFrom(t, fakesConfig(fakes, "sync: {since: 30, database: "+filepath.Join(t.TempDir(), "synced.duckdb")+"}\n"), "")
	if s.Schedule == nil || s.Schedule.Every != config.DefaultSyncEvery {
		t.Fatalf("the default is not an hourly sync: %+v", s.Schedule)
	}
	// The run waits, once planned, until the answers before it are taken.
	planned, goOn, ran := make(chan struct{}), make(chan struct{}), make(chan *syncer.Result, 1)
	var once sync.Once
	s.Sync.Progress = func(syncer.Progress) { once.Do(func() { close(planned); <-goOn }) }
	run := s.Schedule.Run
	s.Schedule.Run = func(ctx context.Context) (*syncer.Result, error) {
		res, err := run(ctx)
		if err != nil {
			t.Error(err)
		}
		ran <- res
		return res, err
	}
	// The schedule reads its clock once a run ended, holding the lock that
	// NextSync takes, to set the next run: a query after this signal sees it.
	scheduled, now := make(chan struct{}), s.Schedule.Now
	if now == nil {
		now = time.Now
	}
	var scheduledOnce sync.Once
	s.Schedule.Now = func() time.Time {
		scheduledOnce.Do(func() { close(scheduled) })
		return now()
	}
	s.Start(context.Background())
	<-planned
	platforms := []string{"meta_ads", "google_ads", "tiktok_ads"}
	before := map[string]toolAnswer{}
	for _, p := range platforms {
		a := mustAsk(t, cs, platformQuery(p, "2026-02-20", "2026-03-14"))
		if a.from() != source.FromLive {
			t.Errorf("%s before the backfill: data_source %s, want live", p, a.meta.DataSource)
		}
		before[p] = a
	}
	close(goOn)
	res := <-ran
	<-scheduled
	for _, p := range syncedPlatforms(t, res) {
		a := mustAsk(t, cs, platformQuery(p, "2026-02-20", "2026-03-14"))
		var prov source.Provenance
		if err := json.Unmarshal(a.meta.DataSource, &prov); err != nil || prov.From != source.FromSynced {
			t.Errorf("%s after the backfill: data_source %s, want synced", p, a.meta.DataSource)
		}
		if prov.NextSync.IsZero() || len(prov.Accounts) == 0 && prov.SyncedThrough == "" {
			t.Errorf("%s: no next sync or no accounts' freshness: %s", p, a.meta.DataSource)
		}
		// Accounts synced alike are said once; else each account's.
		if len(prov.Accounts) == 0 && (prov.SyncedFrom != "2026-02-14" || prov.SyncedThrough != syncToday || prov.SyncedAt.IsZero()) {
			t.Errorf("%s: synced %s … %s at %s, want 2026-02-14 … %s", p, prov.SyncedFrom, prov.SyncedThrough, prov.SyncedAt, syncToday)
		}
		for _, f := range prov.Accounts {
			if f.From != "2026-02-14" || f.Through != syncToday || f.SyncedAt.IsZero() {
				t.Errorf("%s %s: synced %s … %s at %s, want 2026-02-14 … %s", p, f.AccountID, f.From, f.Through, f.SyncedAt, syncToday)
			}
		}
		if a.csv != before[p].csv {
			t.Errorf("%s: synced and live answers differ:\nlive:\n%.800s\nsynced:\n%.800s", p, before[p].csv, a.csv)
		}
	}
}

// TestServerAnswersDuringASync: while a re-sync writes a revised day, a
// steady stream of queries from several clients gets no error, and each
// toolAnswer is the data before the revision or after it, never a mix.
func TestServerAnswersDuringASync(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes and syncs them")
	}
	fakes := livetest.Start(t, livetest.Config{})
	s, cs := servedFrom(t, fakesConfig(fakes, "sync: {since: 15, database: "+filepath.Join(t.TempDir(), "synced.duckdb")+"}\n"), "")
	ctx := context.Background()
	res, err := s.Schedule.Run(ctx) // the backfill
	if err != nil {
		t.Fatal(err)
	}
	platforms := syncedPlatforms(t, res)
	queries := map[string]string{}
	old := map[string]string{}
	for _, p := range platforms {
		queries[p] = platformQuery(p, "2026-03-01", "2026-03-14")
		a := mustAsk(t, cs, queries[p])
		if a.from() != source.FromSynced {
			t.Fatalf("%s: answered %s before the re-sync", p, a.meta.DataSource)
		}
		old[p] = a.csv
	}
	// The platforms revise 2026-03-10, inside every platform's lookback.
	revised := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	fakes.TikTok.Scenario(tiktoktest.Revise(revised, 2))
	liveCS := clientOf(t, fakes.Source(), s.Sync.Now)
	revisedCSV := map[string]string{}
	for _, p := range platforms {
		revisedCSV[p] = mustAsk(t, liveCS, queries[p]).csv
	}
	if revisedCSV["tiktok_ads"] == old["tiktok_ads"] {
		t.Fatal("the revision changes nothing the query reads")
	}

	// Each chunk the re-sync writes waits for answers taken after the last
	// one: the queries interleave with the writes.
	var answered atomic.Int64
	tick := make(chan struct{}, 1)
	s.Sync.Progress = func(syncer.Progress) {
		for mark := answered.Load(); answered.Load() < mark+4; {
			<-tick
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]map[string]int{} // platform → "old"/"new" → answers
	var problems []string
	for i := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				p := platforms[(i+n)%len(platforms)]
				a, err := ask(cs, queries[p])
				mu.Lock()
				if err != nil {
					problems = append(problems, err.Error())
				}
				was, now := linesByAccount(old[p]), linesByAccount(revisedCSV[p])
				for acct, rows := range linesByAccount(a.csv) {
					switch rows {
					case was[acct]:
						seen[p] = addTo(seen[p], "old")
					case now[acct]:
						seen[p] = addTo(seen[p], "new")
					default:
						problems = append(problems, fmt.Sprintf("%s %s: neither the old nor the revised data:\n%s", p, acct, rows))
					}
				}
				if err == nil && len(linesByAccount(a.csv)) != len(was) {
					problems = append(problems, fmt.Sprintf("%s: %d accounts, want %d", p, len(linesByAccount(a.csv)), len(was)))
				}
				mu.Unlock()
				answered.Add(1)
				select {
				case tick <- struct{}{}:
				default:
				}
			}
		})
	}
	res, err = s.Schedule.Run(ctx)
	close(stop)
	wg.Wait()
	if err != nil || res.Failed() > len(res.Accounts)-len(fakes.TikTok.Accounts()) {
		t.Fatalf("re-sync: %v %+v", err, res)
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems during the sync, the first: %s", len(problems), problems[0])
	}
	t.Logf("answers during the re-sync: %v", seen)
	if seen["tiktok_ads"]["old"] == 0 || seen["tiktok_ads"]["new"] == 0 {
		t.Errorf("too few TikTok answers during the re-sync: %v", seen)
	}
	if a := mustAsk(t, cs, queries["tiktok_ads"]); a.csv != revisedCSV["tiktok_ads"] || a.from() != source.FromSynced {
		t.Errorf("after the re-sync: from %s, revised %v", a.meta.DataSource, a.csv == revisedCSV["tiktok_ads"])
	}
}

// byAccount are a CSV's rows by their account_id (the second column).
func linesByAccount(csv string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		f := strings.Split(l, ",")
		out[f[1]] += l + "\n"
	}
	return out
}

func addTo(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

// TestWarehouseWithoutLiveSourcesSaysWhereTheDataEnds: a synced warehouse
// served without the APIs answers a range past its synced days from what
// it holds, with beyond_synced naming where each account's data ends.
func TestWarehouseWithoutLiveSourcesSaysWhereTheDataEnds(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes and syncs them")
	}
	fakes := livetest.Start(t, livetest.Config{})
	path := filepath.Join(t.TempDir(), "synced.duckdb")
	s, _ := servedFrom(t, fakesConfig(fakes, "sync: {since: 2026-03-01, database: "+path+"}\n"), "")
	res, err := s.Schedule.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	syncedPlatforms(t, res)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, cs := servedFrom(t, "", path)
	a := mustAsk(t, cs, platformQuery("tiktok_ads", "2026-02-20", "2026-03-14"))
	if a.from() != source.FromSynced {
		t.Errorf("data_source %s, want synced", a.meta.DataSource)
	}
	var notice string
	for _, w := range a.meta.Warnings {
		if w.Type == "beyond_synced" {
			notice = w.Detail
		}
	}
	if notice == "" {
		t.Fatalf("no beyond_synced warning: %+v", a.meta.Warnings)
	}
	for _, acct := range fakes.TikTok.Accounts() {
		if want := acct.AccountID + " holds 2026-03-01 … " + syncToday; !strings.Contains(notice, want) {
			t.Errorf("the notice does not say %q: %s", want, notice)
		}
	}
	if !strings.Contains(a.csv, "2026-03-01") || strings.Contains(a.csv, "2026-02-2") {
		t.Errorf("the toolAnswer is not the synced days':\n%.500s", a.csv)
	}
}

// TestServerSyncsAWarehouseServer: with sync.every, a server over a
// warehouse server and the APIs syncs the warehouse and answers from it what
// the sync covers, the same CSV as live; the rest live.
func TestServerSyncsAWarehouseServer(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes and syncs them into a warehouse server")
	}
	for name, target := range map[string]func(*testing.T) string{"postgres": pgTargetForTest, "clickhouse": chTargetForTest} {
		t.Run(name, func(t *testing.T) {
			url := target(t) // skips without a server
			fakes := livetest.Start(t, livetest.Config{})
			s, cs := servedFrom(t, fakesConfig(fakes, fmt.Sprintf("  %s: {dsn: %q}\nsync: {every: 1h, since: 20}\n", name, url)), "")
			if s.Schedule == nil {
				t.Fatal("sync.every set, and no sync")
			}
			res, err := s.Schedule.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			syncedPlatforms(t, res)
			liveCS := clientOf(t, fakes.Source(), s.Sync.Now)
			for _, c := range []struct {
				start, from string
			}{{"2026-03-01", source.FromSynced}, {"2026-02-01", source.FromLive}} {
				q := platformQuery("tiktok_ads", c.start, "2026-03-14")
				a := mustAsk(t, cs, q)
				if a.from() != c.from {
					t.Errorf("from %s: data_source %s, want %s", c.start, a.meta.DataSource, c.from)
				}
				if want := mustAsk(t, liveCS, q).csv; a.csv != want {
					t.Errorf("from %s: the answer differs from live:\n%.600s\nlive:\n%.600s", c.start, a.csv, want)
				}
			}
		})
	}
}

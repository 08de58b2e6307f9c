package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
	"github.com/adsmcp/adsmcp/internal/syncer"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// The fakes' data ends on 2026-03-14 (duckdbtest.Anchor is the day after):
// a sync "today" 2026-03-14 backfills the default 90 days, 2025-12-15 on
// (syncMonths).
const (
	syncDay     = "2026-03-14"
	syncDayNext = "2026-03-15"
)

// syncFakes starts the three fake APIs and writes a config file whose
// sources point at them, unpaced (the fakes answer at once).
func syncFakes(t *testing.T) (*livetest.Fakes, string) {
	t.Helper()
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	f := livetest.Start(t, livetest.Config{})
	return f, writeConfig(t, fmt.Sprintf(`
sources:
  meta:
    access_token: %s
    base_url: %s
    requests_per_second: 5000
  google_ads:
    client_id: %s
    client_secret: %s
    refresh_token: %s
    base_url: %s
    token_url: %s
    requests_per_second: 5000
  tiktok:
    access_token: %s
    app_id: "%s"
    app_secret: %s
    base_url: %s
    requests_per_second: 5000
`, f.Meta.Token(), f.Meta.URL, googleadstest.ClientID, googleadstest.ClientSecret, googleadstest.RefreshToken, f.Google.URL, f.Google.TokenURL,
		f.TikTok.Token(), f.TikTok.AppID(), f.TikTok.AppSecret(), f.TikTok.URL))
}

// runSyncJSON runs `adsmcp sync --json` and reads its summary.
func runSyncJSON(t *testing.T, args ...string) (*syncer.Result, string, error) {
	t.Helper()
	out, stderr, err := runCLI(append([]string{"sync", "--json"}, args...)...)
	var res syncer.Result
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil {
		t.Fatalf("sync %v: the summary is not JSON (%v; run error %v):\n%s\n%s", args, jerr, err, out, stderr)
	}
	return &res, stderr, err
}

// refusedPlatform skips a platform whose sync plans the connector refuses
// (a platform whose catalog sets cannot be fetched yet): every account
// failed with an invalid query.
func refusedPlatform(t *testing.T, platform string, res *syncer.Result) {
	t.Helper()
	for _, a := range res.Accounts {
		if !strings.Contains(a.Error, "invalid query") {
			return
		}
	}
	if len(res.Accounts) > 0 {
		skipreport.Skip(t, platform+": its connector cannot fetch every breakdown set the warehouse stores yet ("+res.Accounts[0].Error+")")
	}
}

// syncSince is where the same-numbers test's backfill begins: enough for a
// month's reach, weeks and days, and half the 90 days' requests (a Meta
// sync over the fakes waits on its report runs).
const syncSince = "2026-01-26"

// syncQueries are questions over the synced days: delivery by campaign,
// monthly reach, a breakdown set by week, days.
var syncQueries = [][]string{
	{"-m", "spend,clicks,impressions,conversions", "-d", "account_name,campaign_name", "--start", "2026-02-01", "--end", "2026-02-28"},
	{"-m", "spend,reach,frequency", "-d", "campaign_name", "-g", "monthly", "--start", "2026-02-01", "--end", "2026-02-28"},
	{"-m", "spend,impressions,clicks", "-d", "country", "-g", "weekly", "--start", "2026-02-02", "--end", "2026-03-08"},
	{"-m", "spend,ctr,conversions", "-d", "account_name", "-g", "daily", "--start", syncSince, "--end", syncDay},
}

// answerOf is a query's CSV (--raw) from the given source flags, or "" when
// it has no rows.
func answerOf(t *testing.T, source []string, args ...string) string {
	t.Helper()
	out, err := queryCSV(source, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// queryCSV is answerOf's query, its failure an error.
func queryCSV(source []string, args ...string) (string, error) {
	all := append(append([]string{"query", "--raw", "--today", syncDayNext}, source...), args...)
	out, stderr, err := runCLI(all...)
	if err != nil {
		if strings.Contains(err.Error(), "no data") || strings.Contains(err.Error(), "no rows") {
			return "", nil
		}
		return "", fmt.Errorf("%v: %w\n%s", all, err, stderr)
	}
	if strings.Count(strings.TrimSpace(out), "\n") == 0 {
		return "", nil // the header alone
	}
	return out, nil
}

// TestSyncThenQueryAnswersAsLive: a first sync into a new DuckDB file
// backfills --since of every account, and the file then answers exactly
// what the live APIs answer; the summary (--json) has every account.
func TestSyncThenQueryAnswersAsLive(t *testing.T) {
	f, cfg := syncFakes(t)
	want := map[string]int{}
	for _, c := range f.Connectors {
		accts, err := c.Accounts(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want[c.Platform()] = len(accts)
	}
	for _, p := range catalog.AllPlatforms {
		t.Run(p, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "synced.duckdb")
			res, stderr, err := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", p, "--today", syncDay, "--since", syncSince)
			refusedPlatform(t, p, res)
			if err != nil {
				t.Fatalf("sync: %v\n%s", err, stderr)
			}
			if len(res.Accounts) != want[p] || res.Target != db {
				t.Fatalf("summary: %d accounts into %q, want %d into %s", len(res.Accounts), res.Target, want[p], db)
			}
			// An account may have no rows (the demo's closed Google account
			// delivered nothing then): what it holds is checked against live
			// below. The platform's accounts together have rows.
			var rows int64
			for _, a := range res.Accounts {
				rows += a.Rows
				if a.Error != "" || a.SyncedFrom != syncSince || a.SyncedThrough != syncDay || a.Days != 48 || a.Requests == 0 {
					t.Errorf("account %+v", a)
				}
			}
			if rows == 0 {
				t.Errorf("%s: no rows synced", p)
			}
			for _, q := range syncQueries {
				q = append([]string{"-p", p}, q...)
				live := answerOf(t, []string{"--config", cfg}, q...)
				got := answerOf(t, []string{"--db", db}, q...)
				if live == "" {
					t.Fatalf("%v: no rows live", q)
				}
				if got != live {
					t.Errorf("%v: synced file answers\n%.1500s\nlive answers\n%.1500s", q, got, live)
				}
			}
		})
	}
}

// reportRequests are the TikTok fake's report requests since the last
// ClearRequests, each as its first and last day.
func reportRequests(f *livetest.Fakes) [][2]string {
	var out [][2]string
	for _, r := range f.TikTok.Requests() {
		if strings.Contains(r.Path, "/report/") {
			out = append(out, [2]string{r.Params.Get("start_date"), r.Params.Get("end_date")})
		}
	}
	return out
}

// TestSyncNextDayAsksOnlyTheNewDayAndLookback: a second run a day later
// asks only for the days from the lookback's first to the new day — the
// same requests a first sync of just those days makes — and its summary
// counts those days.
func TestSyncNextDayAsksOnlyTheNewDayAndLookback(t *testing.T) {
	f, cfg := syncFakes(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "synced.duckdb")
	if _, stderr, err := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", "tiktok", "--today", "2026-03-13"); err != nil {
		t.Fatalf("first sync: %v\n%s", err, stderr)
	}
	first := len(reportRequests(f))
	f.TikTok.ClearRequests()
	res, stderr, err := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", "tiktok", "--today", syncDay)
	if err != nil {
		t.Fatalf("second sync: %v\n%s", err, stderr)
	}
	second := reportRequests(f)
	p, _ := catalog.PlatformByName("tiktok_ads")
	lookFrom := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1-p.SyncLookback).Format(time.DateOnly)
	// Reports end in the new day and the lookback (a week's or a month's
	// reach starts before: a chunk owns the periods ending in it).
	for _, r := range second {
		if r[1] < lookFrom || r[1] > syncDay {
			t.Errorf("the second run asked %s … %s, which ends outside the new day and the lookback (%s … %s)", r[0], r[1], lookFrom, syncDay)
		}
	}
	for _, a := range res.Accounts {
		if a.Days != p.SyncLookback || a.SyncedFrom != "2025-12-14" || a.SyncedThrough != syncDay {
			t.Errorf("second run, account %+v: want %d days, synced 2025-12-14 … %s", a, p.SyncLookback, syncDay)
		}
	}
	// The same days synced from nothing: the same report requests.
	f.TikTok.ClearRequests()
	if _, stderr, err := runSyncJSON(t, "--config", cfg, "--db", filepath.Join(dir, "fresh.duckdb"), "--platform", "tiktok", "--today", syncDay, "--since", lookFrom); err != nil {
		t.Fatalf("fresh sync: %v\n%s", err, stderr)
	}
	fresh := reportRequests(f)
	sortSpans := func(s [][2]string) [][2]string {
		s = slices.Clone(s)
		slices.SortFunc(s, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
		return s
	}
	if !slices.Equal(sortSpans(second), sortSpans(fresh)) {
		t.Errorf("the second run made %d report requests, a first sync of the same %d days %d", len(second), p.SyncLookback, len(fresh))
	}
	t.Logf("report requests: first run (90 days) %d, next day %d", first, len(second))
	if len(second)*2 > first {
		t.Errorf("the next day cost %d report requests, the 90-day backfill %d", len(second), first)
	}
}

// TestSyncDeniedAccountFailsAloneAndKeepsItsData: an account whose reports
// the platform denies fails with the cause and the fix, the others complete, the exit
// status is 1 (an error), and the account's earlier data stays.
func TestSyncDeniedAccountFailsAloneAndKeepsItsData(t *testing.T) {
	f, cfg := syncFakes(t)
	db := filepath.Join(t.TempDir(), "synced.duckdb")
	if _, stderr, err := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", "tiktok", "--today", "2026-03-13"); err != nil {
		t.Fatalf("first sync: %v\n%s", err, stderr)
	}
	denied := f.TikTok.Accounts()[0]
	q := []string{"-m", "spend,clicks,conversions", "-d", "campaign_name", "-a", denied.AccountID, "--start", "2026-02-01", "--end", "2026-03-13"}
	before := answerOf(t, []string{"--db", db}, q...)
	if before == "" {
		t.Fatal("no rows for the account after the first sync")
	}
	f.TikTok.Scenario(tiktoktest.ReportsDenied(denied.AccountID))
	out, _, err := runCLI("sync", "--config", cfg, "--db", db, "--platform", "tiktok", "--today", syncDay)
	if err == nil || !strings.Contains(err.Error(), "1 of 3 accounts failed") || !strings.Contains(err.Error(), "run adsmcp sync again") {
		t.Errorf("exit error = %v, want one account failed and what to do", err)
	}
	var line string
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, denied.AccountID) {
			line = l
		}
	}
	if !strings.Contains(line, "FAILED: permission") || !strings.Contains(line, "— fix: ") {
		t.Errorf("the denied account's line does not say the cause and the fix:\n%s", out)
	}
	res, _, _ := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", "tiktok", "--today", syncDay)
	for _, a := range res.Accounts {
		switch {
		case a.AccountID == denied.AccountID:
			if a.Error == "" || a.Fix == "" || a.SyncedThrough != "2026-03-13" {
				t.Errorf("denied account %+v: want its error, its fix, and its days through 2026-03-13", a)
			}
		case a.Error != "" || a.SyncedThrough != syncDay:
			t.Errorf("account %+v: want synced through %s", a, syncDay)
		}
	}
	if after := answerOf(t, []string{"--db", db}, q...); after != before {
		t.Errorf("the denied account's data changed:\n%s\nwas\n%s", after, before)
	}
}

// TestSyncWithoutCredentialsSaysWhatToConfigure: no sources, no sync.
func TestSyncWithoutCredentialsSaysWhatToConfigure(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.duckdb")
	_, _, err := runCLI("sync", "--db", db)
	if err == nil || !strings.Contains(err.Error(), "sources:") || !strings.Contains(err.Error(), "--config") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a warehouse was created")
	}
}

// TestSyncUnderARunningServerSaysWhatToDo: DuckDB lets one process write a
// file only while no other has it open, so a sync into the file a server
// answers from is refused, naming the server's process and both fixes.
func TestSyncUnderARunningServerSaysWhatToDo(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	db := servedCopy(t)
	// Credentials that are never used: the file is refused first.
	cfg := writeConfig(t, "sources:\n  tiktok:\n    access_token: unused\n    app_id: \"1\"\n    app_secret: unused\n    base_url: http://127.0.0.1:9\n")
	_, _, err := runCLI("sync", "--config", cfg, "--db", db)
	for _, want := range []string{db, "open in another process (PID ", "sync: {every: 1h}", "stop it, sync, then start it again"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sync under a running server: %v, want %q", err, want)
		}
	}
}

// TestSyncTargetErrorsHideThePassword: a --target that cannot be reached is
// named without its password, and --db with --target is refused.
func TestSyncTargetErrorsHideThePassword(t *testing.T) {
	cfg := writeConfig(t, "sources:\n  tiktok:\n    access_token: unused\n    app_id: \"1\"\n    app_secret: unused\n    base_url: http://127.0.0.1:9\n")
	_, _, err := runCLI("sync", "--config", cfg, "--target", "postgres://adsmcp:s3cr3t-pw@127.0.0.1:9/ads?connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "s3cr3t-pw") || !strings.Contains(err.Error(), "--target postgres://adsmcp:xxxxx@127.0.0.1:9/ads") {
		t.Errorf("unreachable target: %v", err)
	}
	_, _, err = runCLI("sync", "--config", cfg, "--db", filepath.Join(t.TempDir(), "a.duckdb"), "--target", "postgres://adsmcp@127.0.0.1:9/ads")
	if err == nil || !strings.Contains(err.Error(), "--db and --target") {
		t.Errorf("--db with --target: %v", err)
	}
	_, _, err = runCLI("sync", "--config", cfg, "--db", filepath.Join(t.TempDir(), "no", "such", "a.duckdb"))
	if err == nil || !strings.Contains(err.Error(), "does not exist; create it first") {
		t.Errorf("--db in a missing folder: %v", err)
	}
}

// TestSyncRecordsEveryFailedAccount: accounts failing at once on a new file
// each get their error and fix in the warehouse's sync state (what
// list_accounts shows), not only in the summary.
func TestSyncRecordsEveryFailedAccount(t *testing.T) {
	f, cfg := syncFakes(t)
	var opts []tiktoktest.Option
	for _, a := range f.TikTok.Accounts() {
		opts = append(opts, tiktoktest.ReportsDenied(a.AccountID))
	}
	f.TikTok.Scenario(opts...)
	db := filepath.Join(t.TempDir(), "synced.duckdb")
	res, stderr, err := runSyncJSON(t, "--config", cfg, "--db", db, "--platform", "tiktok", "--today", syncDay)
	if err == nil || res.Failed() != len(f.TikTok.Accounts()) {
		t.Fatalf("sync: %v, %d failed; want all %d", err, res.Failed(), len(f.TikTok.Accounts()))
	}
	states := statesOf(t)(duckdb.OpenSync(t.Context(), db, importer.SyncOptions{}))
	for _, a := range res.Accounts {
		i := slices.IndexFunc(states, func(s importer.SyncState) bool { return s.AccountID == a.AccountID })
		if i < 0 || !strings.Contains(states[i].LastError, a.Error) || !strings.Contains(states[i].LastError, a.Fix) {
			t.Errorf("account %s failed (%s) but its sync state does not say so: %+v\n%s", a.AccountID, a.Error, states, stderr)
		}
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// syncMonths are the chunks of a 90-day sync on syncDay: a chunk is at most
// a calendar month (docs/sync.md).
var syncMonths = [][2]string{
	{"2025-12-15", "2025-12-31"}, {"2026-01-01", "2026-01-31"}, {"2026-02-01", "2026-02-28"}, {"2026-03-01", syncDay},
}

// monthQueries ask a month's numbers of every account: delivery by
// campaign, a breakdown set, and (for whole months) the month's reach.
func monthQueries(first, last string) [][]string {
	span := []string{"-p", "tiktok_ads", "--start", first, "--end", last}
	qs := [][]string{
		append([]string{"-m", "spend,impressions,clicks,conversions", "-d", "account_name,campaign_name"}, span...),
		append([]string{"-m", "spend,impressions", "-d", "account_name,country"}, span...),
	}
	if strings.HasSuffix(first, "-01") && last != syncDay {
		qs = append(qs, append([]string{"-m", "reach", "-d", "account_name,campaign_name", "-g", "monthly"}, span...))
	}
	return qs
}

// byAccount splits a CSV answer into each account's rows ("" for none).
func byAccount(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	if out == "" {
		return m
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, out)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "account_name" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no account_name column: %v", recs[0])
	}
	for _, r := range recs[1:] {
		m[r[col]] += strings.Join(r, ",") + "\n"
	}
	return m
}

// killTarget is a warehouse the kill test syncs into.
type killTarget struct {
	// flags point sync at it, and source query at it.
	flags, source []string
	states        func(t *testing.T) []importer.SyncState
}

// TestSyncSurvivesKill9: a sync killed (SIGKILL, then Ctrl-C) at several
// points leaves,
// for every account and every month, either none of the month or all of it
// exactly as the live API answers, and a sync state that says which; the
// next run goes on, and the last completes every account equal to live. On
// a DuckDB file and on PostgreSQL.
func TestSyncSurvivesKill9(t *testing.T) {
	bin := binary(t)
	f, cfg := syncFakes(t)
	names := map[string]string{} // account name → ID
	for _, a := range f.TikTok.Accounts() {
		names[a.AccountName] = a.AccountID
	}
	// The live answers, per month, query and account.
	live := map[string]map[string]string{}
	for _, m := range syncMonths {
		for _, q := range monthQueries(m[0], m[1]) {
			live[strings.Join(q, " ")] = byAccount(t, answerOf(t, []string{"--config", cfg}, q...))
		}
	}
	for name, open := range map[string]func(t *testing.T) killTarget{"duckdb": duckdbKillTarget, "postgres": pgKillTarget} {
		t.Run(name, func(t *testing.T) {
			target := open(t)
			// Each run is killed after its k-th progress line: before any
			// chunk (1), then after a few chunks of the resumed runs.
			args := append([]string{"sync", "--config", cfg, "--platform", "tiktok", "--today", syncDay, "--progress-lines"}, target.flags...)
			for i, k := range []int{1, 3, 2, 4, 6} {
				completed, _ := runKilled(t, bin, args, k, syscall.SIGKILL)
				checkWhole(t, fmt.Sprintf("after kill %d (line %d)", i+1, k), target, live, names, false)
				if completed {
					t.Logf("run %d completed before its line %d", i+1, k)
				}
			}
			// Ctrl-C: the run stops, says so, and leaves the same guarantee.
			completed, stderr := runKilled(t, bin, args, 3, syscall.SIGINT)
			if !completed && !strings.Contains(stderr, "interrupted: every account is whole up to its last month written; run adsmcp sync again") {
				t.Errorf("interrupted, the sync said:\n%s", stderr)
			}
			checkWhole(t, "after Ctrl-C", target, live, names, false)
			out, stderr, err := runCLI(append([]string{"sync", "--config", cfg, "--platform", "tiktok", "--today", syncDay}, target.flags...)...)
			if err != nil {
				t.Fatalf("the last run: %v\n%s\n%s", err, out, stderr)
			}
			checkWhole(t, "after the last run", target, live, names, true)
		})
	}
}

// runKilled starts the binary and sends it sig once it has printed k
// progress lines (or lets it end); it says whether the run ended by itself,
// and what it printed on stderr.
func runKilled(t *testing.T, bin string, args []string, k int, sig syscall.Signal) (completed bool, stderrText string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	sc := bufio.NewScanner(stderr)
	for n := 0; sc.Scan(); {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "sync: ") {
			if n++; n == k {
				cmd.Process.Signal(sig) //nolint:errcheck // it may have ended
			}
		}
	}
	err = cmd.Wait()
	text := strings.Join(seen, "\n")
	if err == nil {
		return true, text
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case sig == syscall.SIGKILL && ok && ws.Signaled():
	case sig == syscall.SIGINT && ok && ws.ExitStatus() == 1:
	default:
		t.Fatalf("sync ended with %v after %v:\n%s", err, sig, text)
	}
	return false, text
}

// checkWhole checks that the warehouse holds, for every account and month,
// the live answer or nothing, as its sync state says; all of them when
// complete.
func checkWhole(t *testing.T, when string, tg killTarget, live map[string]map[string]string, names map[string]string, complete bool) {
	t.Helper()
	states := map[string]importer.SyncState{}
	for _, s := range tg.states(t) {
		states[ads.FoldID(s.AccountID)] = s
	}
	var spans []string
	for _, s := range states {
		spans = append(spans, s.SyncedFrom.Format(time.DateOnly)+"…"+s.SyncedThrough.Format(time.DateOnly))
	}
	t.Logf("%s: synced %v", when, spans)
	for _, m := range syncMonths {
		first, _ := time.Parse(time.DateOnly, m[0])
		last, _ := time.Parse(time.DateOnly, m[1])
		for _, q := range monthQueries(m[0], m[1]) {
			key := strings.Join(q, " ")
			out, err := queryCSV(tg.source, q...)
			if err != nil && len(states) > 0 {
				t.Fatalf("%s: %v", when, err)
			}
			// Before any chunk a server warehouse may have no tables yet:
			// its queries fail, and it holds nothing.
			got := byAccount(t, out)
			for name, id := range names {
				st, ok := states[ads.FoldID(id)]
				held := ok && !st.SyncedFrom.IsZero() && !first.Before(st.SyncedFrom) && !last.After(st.SyncedThrough)
				switch {
				case complete && !held:
					t.Errorf("%s: %s %s … %s not synced (state %+v)", when, name, m[0], m[1], st)
				case held && got[name] != live[key][name]:
					t.Errorf("%s: %s %s … %s, which its sync state holds, answers\n%s\nlive answers\n%s(query %s)", when, name, m[0], m[1], got[name], live[key][name], key)
				case !held && got[name] != "":
					t.Errorf("%s: %s %s … %s, outside its sync state (%v … %v), answers\n%s(query %s)", when, name, m[0], m[1], st.SyncedFrom, st.SyncedThrough, got[name], key)
				}
			}
		}
	}
}

func duckdbKillTarget(t *testing.T) killTarget {
	path := filepath.Join(t.TempDir(), "synced.duckdb")
	return killTarget{flags: []string{"--db", path}, source: []string{"--db", path},
		states: func(t *testing.T) []importer.SyncState {
			return statesOf(t)(duckdb.OpenSync(t.Context(), path, importer.SyncOptions{}))
		}}
}

func pgKillTarget(t *testing.T) killTarget {
	url := pgTargetForTest(t)
	cfg := writeConfig(t, "sources:\n  postgres:\n    dsn: "+url+"\n")
	return killTarget{flags: []string{"--target", url}, source: []string{"--config", cfg},
		states: func(t *testing.T) []importer.SyncState {
			tgt, err := parseTarget(url)
			if err != nil {
				t.Fatal(err)
			}
			return statesOf(t)(tgt.engine.OpenSync(t.Context(), url, importer.SyncOptions{}))
		}}
}

// statesOf reads the sync states of the target just opened, and closes it.
func statesOf(t *testing.T) func(importer.SyncTarget, error) []importer.SyncState {
	return func(tg importer.SyncTarget, err error) []importer.SyncState {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		st, err := tg.States(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

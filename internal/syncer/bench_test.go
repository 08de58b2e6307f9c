package syncer_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
	"github.com/adsmcp/adsmcp/internal/syncer"
)

// The sync's benchmarks run over the fakes at a scale (package fakescale):
// N accounts taken in turn from every platform whose sync plans compile
// (livetest.Fakes.Syncable; the others are named in the log and join once
// their sync works), D days of data ending the day before
// duckdbtest.Anchor. The fakes answer at once (no latency): what is measured
// is the sync's own work — the connectors' requests and parsing, the
// chunks' writes — and the fakes' building of each account's rows, on the
// same cores.

// startScaled starts the fakes serving n accounts per platform over days,
// and returns them with n accounts of the syncable platforms and those
// platforms. standalone fakes keep no request log (for large runs).
func startScaled(b *testing.B, n, days int, standalone bool) (*livetest.Fakes, []string, []string) {
	b.Helper()
	scale := &fakescale.Scale{Accounts: n, Days: days, Seed: 42, Anchor: duckdbtest.Anchor}
	f := livetest.Start(b, livetest.Config{
		Meta:   metatest.Config{Scale: scale, Standalone: standalone},
		Google: googleadstest.Config{Scale: scale, Standalone: standalone},
		TikTok: tiktoktest.Config{Scale: scale, Standalone: standalone},
	})
	platforms, refused := f.Syncable()
	for p, err := range refused {
		b.Logf("%s is not synced (its accounts are left out): %v", p, err)
	}
	accts := f.Accounts(context.Background(), b, platforms, n)
	ids := make([]string, len(accts))
	for i, a := range accts {
		ids[i] = a.AccountID
	}
	return f, ids, platforms
}

// BenchmarkSync syncs N accounts × D days into an empty warehouse
// (target=duckdb: an embedded file; target=clickhouse: a fresh database on
// ADSMCP_TEST_CH_DSN; target=discard: no warehouse, the chunks dropped once
// fetched, for what the fetching and the fakes cost alone) and reports rows/s, requests per account-day (the
// sync's own count, source.CountCall) and the test process's peak resident
// memory during the sync (VmHWM of /proc/self/status, reset before the sync
// through /proc/self/clear_refs; it includes the fakes, whose resident size
// before the sync is base-RSS-MB).
func BenchmarkSync(b *testing.B) {
	for _, target := range []string{"discard", "duckdb", "clickhouse"} {
		for _, n := range []int{10, 100, 1000} {
			for _, days := range []int{7, 30, 90, 730} {
				b.Run(fmt.Sprintf("target=%s/accounts=%d/days=%d", target, n, days), func(b *testing.B) {
					benchSync(b, target, n, days)
				})
			}
		}
	}
}

func benchSync(b *testing.B, target string, n, days int) {
	ctx := context.Background()
	open := func(b *testing.B) importer.SyncTarget {
		opt := importer.SyncOptions{Now: duckdbtest.Now}
		var tg importer.SyncTarget
		var err error
		switch target {
		case "duckdb":
			tg, err = duckdb.OpenSync(ctx, filepath.Join(b.TempDir(), "synced.duckdb"), opt)
		case "clickhouse":
			tg, err = clickhouse.OpenSync(ctx, chtest.FreshDatabase(b), opt)
		case "discard":
			tg = &discardTarget{states: map[string]importer.SyncState{}}
		}
		if err != nil {
			b.Fatal(err)
		}
		return tg
	}
	if target == "clickhouse" {
		chtest.DSN(b) // skips without a server
	}
	f, ids, platforms := startScaled(b, n, days, true)
	var writes timedWrites
	since := duckdbtest.Anchor.AddDate(0, 0, -days)
	var rows, requests, accountDays int64
	var took time.Duration
	var peak, base float64
	for b.Loop() {
		b.StopTimer()
		tg := &timedTarget{SyncTarget: open(b), w: &writes}
		runtime.GC()
		debug.FreeOSMemory()
		base = max(base, memStatus(b, "VmRSS"))
		resetPeak(b)
		b.StartTimer()
		start := time.Now()
		res, err := syncer.Run(ctx, syncer.Options{Connectors: f.Connectors, Target: tg, Accounts: ids, Platforms: platforms,
			Now: duckdbtest.Now, Since: since})
		took += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, memStatus(b, "VmHWM"))
		b.StopTimer()
		if err := tg.Close(); err != nil {
			b.Fatal(err)
		}
		if res.Failed() > 0 {
			b.Fatalf("sync: %+v", res.Accounts)
		}
		for _, a := range res.Accounts {
			rows += a.Rows
			requests += a.Requests
			accountDays += int64(a.Days)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	b.ReportMetric(float64(requests)/float64(accountDays), "requests/account-day")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	b.ReportMetric(writes.total.Seconds()/float64(b.N), "write-s/op")
	b.ReportMetric(float64(len(writes.each))/float64(b.N), "chunks/op")
	b.ReportMetric(writes.lastTenth().Seconds()*1000, "last-tenth-write-ms/chunk")
	b.ReportMetric(peak/(1<<20), "peak-RSS-MB")
	b.ReportMetric(base/(1<<20), "base-RSS-MB")
}

// BenchmarkIncrementalSync syncs N accounts × D days, then again a day
// later, as a scheduled sync does, and reports the requests the fakes
// received per account in each run (their request logs): the second asks
// for the new day and the platform's lookback (catalog.Platform.SyncLookback),
// not the history.
func BenchmarkIncrementalSync(b *testing.B) {
	for _, days := range []int{90, 730} {
		b.Run(fmt.Sprintf("accounts=10/days=%d", days), func(b *testing.B) {
			ctx := context.Background()
			f, ids, platforms := startScaled(b, 10, days, false)
			// The first run is the day before the anchor: the data's last
			// day is then new to the second.
			first := duckdbtest.Now().AddDate(0, 0, -1)
			since := duckdbtest.Anchor.AddDate(0, 0, -days)
			var requests [2]int
			var accountDays [2]int
			for b.Loop() {
				tg, err := duckdb.OpenSync(ctx, filepath.Join(b.TempDir(), "synced.duckdb"), importer.SyncOptions{Now: duckdbtest.Now})
				if err != nil {
					b.Fatal(err)
				}
				for i, now := range []time.Time{first, duckdbtest.Now()} {
					before := f.Requests()
					res, err := syncer.Run(ctx, syncer.Options{Connectors: f.Connectors, Target: tg, Accounts: ids, Platforms: platforms,
						Now: func() time.Time { return now }, Since: since})
					if err != nil {
						b.Fatal(err)
					}
					if res.Failed() > 0 {
						b.Fatalf("sync: %+v", res.Accounts)
					}
					requests[i] += f.Requests() - before
					for _, a := range res.Accounts {
						accountDays[i] += a.Days
					}
				}
				if err := tg.Close(); err != nil {
					b.Fatal(err)
				}
			}
			per := float64(b.N * len(ids))
			b.ReportMetric(float64(requests[0])/per, "first-requests/account")
			b.ReportMetric(float64(accountDays[0])/per, "first-days/account")
			b.ReportMetric(float64(requests[1])/per, "next-requests/account")
			b.ReportMetric(float64(accountDays[1])/per, "next-days/account")
		})
	}
}

// timedTarget times its target's chunk writes: whether a write's cost grows
// with what the warehouse already holds.
type timedTarget struct {
	importer.SyncTarget
	w *timedWrites
}

type timedWrites struct {
	total time.Duration
	each  []time.Duration // in the order written
}

func (t *timedTarget) Write(ctx context.Context, c *importer.Chunk) (importer.ChunkResult, error) {
	start := time.Now()
	r, err := t.SyncTarget.Write(ctx, c)
	d := time.Since(start)
	t.w.total += d // one writer at a time (syncer.Run writes chunks one by one)
	t.w.each = append(t.w.each, d)
	return r, err
}

// lastTenth is the mean time of the last tenth of the writes.
func (w *timedWrites) lastTenth() time.Duration {
	n := max(len(w.each)/10, 1)
	if len(w.each) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range w.each[len(w.each)-n:] {
		sum += d
	}
	return sum / time.Duration(n)
}

// discardTarget keeps the accounts' sync states and drops their rows.
type discardTarget struct {
	states map[string]importer.SyncState // written by one writer at a time
}

func (d *discardTarget) Name() string { return "discard" }

func (d *discardTarget) States(context.Context) ([]importer.SyncState, error) {
	return slices.Collect(maps.Values(d.states)), nil
}

func (d *discardTarget) Write(_ context.Context, c *importer.Chunk) (importer.ChunkResult, error) {
	d.states[ads.FoldID(c.Account.AccountID)] = c.State
	return importer.ChunkResult{FactsAdded: int64(len(c.Facts)), ReachAdded: int64(len(c.Reach))}, nil
}

func (d *discardTarget) RecordFailure(_ context.Context, st importer.SyncState) error {
	d.states[ads.FoldID(st.AccountID)] = st
	return nil
}

func (d *discardTarget) Close() error { return nil }

func (d *discardTarget) Check(context.Context) error { return nil }

// resetPeak resets the process's peak resident size (VmHWM), as writing 5
// to /proc/PID/clear_refs does (proc(5)).
func resetPeak(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("peak RSS not reset: %v", err)
	}
}

// memStatus is a size field of /proc/self/status (VmRSS, VmHWM) in bytes.
func memStatus(b *testing.B, field string) float64 {
	file, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	s := bufio.NewScanner(file)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb * 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

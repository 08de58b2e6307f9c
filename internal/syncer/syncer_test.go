package syncer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

var day0 = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

// at is a clock reading 9:00 UTC on day0 + days.
func at(days int) func() time.Time {
	return func() time.Time { return day0.AddDate(0, 0, days).Add(9 * time.Hour) }
}

func runSync(t *testing.T, c *stubConn, tg *memTarget, now func() time.Time, since time.Time) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{Connectors: []live.Connector{c}, Target: tg, Now: now, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// plansPerChunk is how many requests the stub gets for one chunk of span s.
func plansPerChunk(t *testing.T, platform string, s Span) int {
	t.Helper()
	plans, err := live.SyncPlans(platform, s.First, s.Last)
	if err != nil {
		t.Fatal(err)
	}
	return len(plans)
}

// daysOf are the days the requests for facts (not reach) of account asked.
func daysOf(reqs []stubRequest, account string) map[time.Time]int {
	out := map[time.Time]int{}
	for _, r := range reqs {
		if r.Account != account || r.ReachOnly || r.Set != catalog.Delivery {
			continue
		}
		for d := r.First; !d.After(r.Last); d = d.AddDate(0, 0, 1) {
			out[d]++
		}
	}
	return out
}

func TestFirstRunBackfillsEveryDayOnceNewestFirst(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 3), newMemTarget()
	since := day0.AddDate(0, 0, -69)
	res := runSync(t, c, tg, at(0), since)
	if res.Failed() != 0 || len(res.Accounts) != 3 {
		t.Fatalf("accounts %+v", res.Accounts)
	}
	reqs := c.take()
	for _, a := range c.accounts {
		days := daysOf(reqs, a.AccountID)
		if len(days) != 70 {
			t.Errorf("%s: %d days fetched, want 70 (%s … %s)", a.AccountID, len(days), since.Format(time.DateOnly), day0.Format(time.DateOnly))
		}
		for d, n := range days {
			if n != 1 || d.Before(since) || d.After(day0) {
				t.Errorf("%s: day %s fetched %d times", a.AccountID, d.Format(time.DateOnly), n)
			}
		}
		st := tg.states[ads.FoldID(a.AccountID)]
		if !st.SyncedFrom.Equal(since) || !st.SyncedThrough.Equal(day0) || st.LastSuccess.IsZero() || st.LastError != "" {
			t.Errorf("%s: state %+v", a.AccountID, st)
		}
		// Newest first: the account's chunks were written from day0's month back.
		var firsts []time.Time
		for _, ch := range tg.chunks {
			if ch.Account.AccountID == a.AccountID {
				firsts = append(firsts, ch.First)
			}
		}
		if !slices.IsSortedFunc(firsts, func(x, y time.Time) int { return y.Compare(x) }) || len(firsts) != len(months(Span{since, day0})) {
			t.Errorf("%s: chunks start %v, want one per month, newest first", a.AccountID, firsts)
		}
	}
}

func TestIncrementalRunAsksOnlyNewDaysAndLookback(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 2), newMemTarget()
	runSync(t, c, tg, at(0), day0.AddDate(0, 0, -89))
	c.take()
	runSync(t, c, tg, at(1), time.Time{})
	reqs := c.take()
	lb := lookback(catalog.MetaAds)
	want := Span{day0.AddDate(0, 0, 2-lb), day0.AddDate(0, 0, 1)}
	for _, a := range c.accounts {
		days := daysOf(reqs, a.AccountID)
		if len(days) != want.Days() {
			t.Errorf("%s: the second run fetched %d days, want the new day and the %d-day lookback (%d)", a.AccountID, len(days), lb, want.Days())
		}
		for d := range days {
			if d.Before(want.First) || d.After(want.Last) {
				t.Errorf("%s: the second run fetched %s, outside %s … %s", a.AccountID, d.Format(time.DateOnly), want.First.Format(time.DateOnly), want.Last.Format(time.DateOnly))
			}
		}
		st := tg.states[ads.FoldID(a.AccountID)]
		if !st.SyncedThrough.Equal(want.Last) || !st.SyncedFrom.Equal(day0.AddDate(0, 0, -89)) {
			t.Errorf("%s: state %s … %s", a.AccountID, st.SyncedFrom.Format(time.DateOnly), st.SyncedThrough.Format(time.DateOnly))
		}
	}
	// Requests: proportional to the days asked, not to the history.
	perAccount := 0
	for _, s := range oldestFirst(want) {
		perAccount += plansPerChunk(t, catalog.MetaAds, s)
	}
	if len(reqs) != 2*perAccount {
		t.Errorf("the second run made %d requests, want %d (2 accounts × the chunks of the lookback)", len(reqs), 2*perAccount)
	}
}

// TestARevisionInsideTheLookbackIsPickedUp revises a day the platform may
// still revise, and one before: the next run's chunks hold the first
// revision, and leave the older day as it was synced.
func TestARevisionInsideTheLookbackIsPickedUp(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 1), newMemTarget()
	runSync(t, c, tg, at(0), day0.AddDate(0, 0, -59))
	inside, before := day0.AddDate(0, 0, 2-lookback(catalog.MetaAds)), day0.AddDate(0, 0, -lookback(catalog.MetaAds)-5)
	c.revised = map[time.Time]float64{inside: 3, before: 5}
	runSync(t, c, tg, at(1), time.Time{})
	held := latestValues(tg, catalog.Delivery)
	if got, want := held[inside], 3*stubValue(inside); got != want {
		t.Errorf("%s, inside the lookback: the warehouse holds %v, want the revised %v", inside.Format(time.DateOnly), got, want)
	}
	if got, want := held[before], stubValue(before); got != want {
		t.Errorf("%s, before the lookback: the warehouse holds %v, want the first sync's %v (no request reads it again)", before.Format(time.DateOnly), got, want)
	}
}

// latestValues are the delivery figure of each day in the last chunk written
// that holds it: what the warehouse holds, since a chunk replaces its days.
func latestValues(tg *memTarget, set string) map[time.Time]float64 {
	out := map[time.Time]float64{}
	for _, ch := range tg.chunks {
		for _, f := range ch.Facts {
			if f.Breakdown == set {
				out[f.Date] = f.Measures[catalog.Spend]
			}
		}
	}
	return out
}

func TestAFailingAccountKeepsItsDataWhileOthersComplete(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 3), newMemTarget()
	bad := c.accounts[1].AccountID
	chunks := 0
	c.fail = func(r stubRequest) error {
		if r.Account == bad && r.Set == catalog.Delivery && !r.ReachOnly {
			if chunks++; chunks == 2 {
				return denied(bad)
			}
		}
		return nil
	}
	since := day0.AddDate(0, 0, -69)
	res := runSync(t, c, tg, at(0), since)
	if res.Failed() != 1 {
		t.Fatalf("failed accounts: %d, want 1: %+v", res.Failed(), res.Accounts)
	}
	for _, a := range res.Accounts {
		st := tg.states[ads.FoldID(a.AccountID)]
		if a.AccountID != bad {
			if a.Error != "" || !st.SyncedFrom.Equal(since) {
				t.Errorf("%s: %+v, state %+v", a.AccountID, a, st)
			}
			continue
		}
		if a.Fix == "" || a.Error == "" || st.LastError == "" {
			t.Errorf("the failed account says no cause or fix: %+v, state %+v", a, st)
		}
		// Its first chunk (the newest month) stays, and the state says so.
		if !st.SyncedThrough.Equal(day0) || !st.SyncedFrom.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("the failed account's state %s … %s, want its first chunk 2026-03-01 … 2026-03-10", st.SyncedFrom.Format(time.DateOnly), st.SyncedThrough.Format(time.DateOnly))
		}
	}
	c.fail = nil
	c.take()
	res = runSync(t, c, tg, at(0), since)
	if res.Failed() != 0 {
		t.Fatalf("the next run: %+v", res.Accounts)
	}
	st := tg.states[ads.FoldID(bad)]
	if !st.SyncedFrom.Equal(since) || st.LastError != "" {
		t.Errorf("after the next run: %+v", st)
	}
	// The next run went on from where it stopped: the days it lacked, and
	// the lookback (here the whole month it had), each once.
	for d, n := range daysOf(c.take(), bad) {
		if n != 1 || d.Before(since) || d.After(day0) {
			t.Errorf("the next run fetched %s %d times", d.Format(time.DateOnly), n)
		}
	}
}

// TestInterruptedRunsResumeToTheSameWarehouse interrupts runs at random
// writes (as Ctrl-C does: the context ends), then lets one complete: every
// state must say exactly what the chunks written hold, contiguous, and the
// last run must end with every day synced.
func TestInterruptedRunsResumeToTheSameWarehouse(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c, tg := newStub(catalog.MetaAds, 1+rng.IntN(4)), newMemTarget()
		since := day0.AddDate(0, 0, -rng.IntN(120))
		for range 1 + rng.IntN(3) {
			ctx, cancel := context.WithCancel(context.Background())
			stopAt, writes := 1+rng.IntN(6), 0
			tg.failWrite = func(*importer.Chunk) error {
				if writes++; writes == stopAt {
					cancel()
					return context.Canceled
				}
				return nil
			}
			_, err := Run(ctx, Options{Connectors: []live.Connector{c}, Target: tg, Now: at(0), Since: since})
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("seed %d: %v", seed, err)
			}
			checkStatesMatchChunks(t, seed, tg)
		}
		tg.failWrite = nil
		res := runSync(t, c, tg, at(0), since)
		if res.Failed() != 0 {
			t.Fatalf("seed %d: the completing run: %+v", seed, res.Accounts)
		}
		checkStatesMatchChunks(t, seed, tg)
		for _, a := range c.accounts {
			st := tg.states[ads.FoldID(a.AccountID)]
			if !st.SyncedFrom.Equal(since) || !st.SyncedThrough.Equal(day0) {
				t.Errorf("seed %d: %s ends %s … %s, want %s … %s", seed, a.AccountID, st.SyncedFrom.Format(time.DateOnly),
					st.SyncedThrough.Format(time.DateOnly), since.Format(time.DateOnly), day0.Format(time.DateOnly))
			}
		}
	}
}

// checkStatesMatchChunks checks that each account's state spans exactly the
// days its written chunks hold, with no gap.
func checkStatesMatchChunks(t *testing.T, seed uint64, tg *memTarget) {
	t.Helper()
	held := map[string]map[time.Time]bool{}
	for _, c := range tg.chunks {
		id := ads.FoldID(c.Account.AccountID)
		if held[id] == nil {
			held[id] = map[time.Time]bool{}
		}
		for d := c.First; !d.After(c.Last); d = d.AddDate(0, 0, 1) {
			held[id][d] = true
		}
	}
	for id, st := range tg.states {
		if st.SyncedFrom.IsZero() {
			if len(held[id]) != 0 {
				t.Errorf("seed %d: %s has no synced days in its state, and %d days written", seed, id, len(held[id]))
			}
			continue
		}
		span := Span{st.SyncedFrom, st.SyncedThrough}
		if span.Days() != len(held[id]) {
			t.Errorf("seed %d: %s: state %s … %s (%d days), chunks hold %d days", seed, id, st.SyncedFrom.Format(time.DateOnly),
				st.SyncedThrough.Format(time.DateOnly), span.Days(), len(held[id]))
		}
		for d := span.First; !d.After(span.Last); d = d.AddDate(0, 0, 1) {
			if !held[id][d] {
				t.Errorf("seed %d: %s: state says %s is synced; no chunk holds it", seed, id, d.Format(time.DateOnly))
			}
		}
	}
}

// TestAPlatformThatCannotListGoesOnWithTheOthers: a platform whose account
// list fails (a revoked token) is a failure of its own in the result, and
// the other platforms' accounts are synced.
func TestAPlatformThatCannotListGoesOnWithTheOthers(t *testing.T) {
	good, bad, tg := newStub(catalog.MetaAds, 2), newStub(catalog.TikTokAds, 2), newMemTarget()
	bad.listErr = denied("*")
	res, err := Run(context.Background(), Options{Connectors: []live.Connector{good, bad}, Target: tg, Now: at(0), Since: day0.AddDate(0, 0, -9)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() != 1 || len(res.Accounts) != 3 {
		t.Fatalf("want 2 synced accounts and the failed TikTok listing: %+v", res.Accounts)
	}
	for _, a := range res.Accounts {
		if (a.Platform == catalog.TikTokAds) != (a.Error != "") || a.Platform == catalog.TikTokAds && a.Fix == "" {
			t.Errorf("%+v", a)
		}
	}
}

// TestAWarehouseTheSyncRefusesIsRefusedBeforeAnyRequest: the demo dataset
// (without --replace-demo) stops the run before any request to a platform.
func TestAWarehouseTheSyncRefusesIsRefusedBeforeAnyRequest(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 2), newMemTarget()
	tg.refuse = importer.ErrDemoData
	_, err := Run(context.Background(), Options{Connectors: []live.Connector{c}, Target: tg, Now: at(0)})
	if !errors.Is(err, importer.ErrDemoData) {
		t.Fatalf("err %v, want the demo refusal", err)
	}
	if n := len(c.take()); n != 0 {
		t.Errorf("%d requests before the refusal", n)
	}
}

// TestRefetchFromFetchesAPastRangeAgain: --refetch-from asks again every
// day from it, and the rest of the history is left alone.
func TestRefetchFromFetchesAPastRangeAgain(t *testing.T) {
	c, tg := newStub(catalog.MetaAds, 1), newMemTarget()
	runSync(t, c, tg, at(0), day0.AddDate(0, 0, -89))
	c.take()
	from := day0.AddDate(0, 0, -60)
	if _, err := Run(context.Background(), Options{Connectors: []live.Connector{c}, Target: tg, Now: at(0), RefetchFrom: from}); err != nil {
		t.Fatal(err)
	}
	days := daysOf(c.take(), c.accounts[0].AccountID)
	if len(days) != 61 {
		t.Errorf("refetched %d days, want the 61 from %s", len(days), from.Format(time.DateOnly))
	}
	for d := range days {
		if d.Before(from) {
			t.Errorf("refetched %s, before --refetch-from", d.Format(time.DateOnly))
		}
	}
}

package tiktok

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// sortedReach orders reach rows so that two fetches compare.
func sortedReach(rs []ads.Reach) []ads.Reach {
	slices.SortFunc(rs, func(a, b ads.Reach) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.ObjectID, b.ObjectID), a.PeriodStart.Compare(b.PeriodStart))
	})
	return rs
}

// TestFetchReachAlone: a plan of reach alone (a pass's reach step) asks only
// reach reports, one per period, and stages exactly the reach rows the full
// fetch stages, with no facts and no names; a query that reads no reach asks
// nothing.
func TestFetchReachAlone(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	ctx := context.Background()
	q := normalize(t, accounts, `{"metrics":["spend","reach"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`)

	full := live.NewBatch()
	if err := live.Fetch(ctx, f.conn, q, accounts, full); err != nil {
		t.Fatal(err)
	}
	_, _, _, _, want := full.Snapshot()
	if len(want) == 0 {
		t.Fatal("the full fetch staged no reach")
	}

	f.srv.ClearRequests()
	alone := live.NewBatch()
	if err := live.FetchReach(ctx, f.conn, q, accounts, alone); err != nil {
		t.Fatal(err)
	}
	campaigns, adsets, adList, facts, got := alone.Snapshot()
	if len(campaigns)+len(adsets)+len(adList)+len(facts) != 0 {
		t.Errorf("reach alone staged %d campaigns, %d ad groups, %d ads, %d facts; want none", len(campaigns), len(adsets), len(adList), len(facts))
	}
	if !slices.Equal(sortedReach(got), sortedReach(want)) {
		t.Errorf("reach alone:\n%v\nwant the full fetch's:\n%v", got, want)
	}
	reqs := f.srv.Requests()
	for _, r := range reqs {
		if r.Params.Get("metrics") != `["reach"]` {
			t.Errorf("reach alone asked %s %s", r.Path, r.Params.Get("metrics"))
		}
	}
	if len(reqs) != 4 {
		t.Errorf("%d requests for 4 months of reach, want 4", len(reqs))
	}

	f.srv.ClearRequests()
	none := normalize(t, accounts, `{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`)
	if err := live.FetchReach(ctx, f.conn, none, accounts, live.NewBatch()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("a query without reach: %d requests for reach alone, want none", n)
	}
}

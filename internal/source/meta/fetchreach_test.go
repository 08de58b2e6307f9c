package meta

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// TestFetchReachIsFetchsReach: FetchReach stages exactly the reach Fetch
// stages for the same query — monthly, weekly, a total over one month, per
// campaign and per account — and nothing else, in requests that ask for
// reach alone, each counted in source_calls.
func TestFetchReachIsFetchsReach(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	for _, raw := range []string{
		`{"metrics":["spend","reach","frequency"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`,
		`{"metrics":["impressions","reach"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-02-20"}}`,
		`{"metrics":["spend","reach","frequency"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_range":{"start":"2026-01-01","end":"2026-01-31"}}`,
	} {
		q := normalize(t, accounts, raw)
		full := live.NewBatch()
		if err := live.Fetch(context.Background(), f.conn, q, q.Accounts, full); err != nil {
			t.Fatal(err)
		}
		f.srv.ClearRequests()
		calls := &source.Calls{}
		alone := live.NewBatch()
		if err := live.FetchReach(source.WithCalls(context.Background(), calls), f.conn, q, q.Accounts, alone); err != nil {
			t.Fatal(err)
		}
		_, _, _, _, want := full.Snapshot()
		campaigns, adsets, adList, facts, got := alone.Snapshot()
		if len(want) == 0 || !reflect.DeepEqual(sortReach(got), sortReach(want)) {
			t.Errorf("%s: FetchReach staged %d reach rows, Fetch %d (or they differ)", raw, len(got), len(want))
		}
		if len(campaigns)+len(adsets)+len(adList)+len(facts) > 0 {
			t.Errorf("%s: FetchReach staged more than reach", raw)
		}
		reqs := f.srv.Requests()
		for _, r := range reqs {
			if fields := r.Params.Get("fields"); fields != "" && !strings.HasSuffix(fields, "reach") || strings.Contains(fields, "spend") {
				t.Errorf("%s: a reach request asks %s", raw, fields)
			}
		}
		if calls.N() != len(reqs) || len(reqs) < len(q.Accounts) {
			t.Errorf("%s: %d calls counted, %d requests, %d accounts", raw, calls.N(), len(reqs), len(q.Accounts))
		}
	}
}

// sortReach orders reach rows (the workers add them in any order).
func sortReach(rs []ads.Reach) []ads.Reach {
	slices.SortFunc(rs, func(a, b ads.Reach) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Level, b.Level), cmp.Compare(a.ObjectID, b.ObjectID),
			cmp.Compare(a.Grain, b.Grain), a.PeriodStart.Compare(b.PeriodStart))
	})
	return rs
}

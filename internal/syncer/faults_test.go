package syncer

import (
	"context"
	"fmt"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

// TestThrottledAndFailingPagesSyncTheSameRows: a sync whose platforms
// throttle it, split reports into pages and fail some pages midway (retried
// by the connectors) writes exactly the rows of a sync that met none of it.
func TestThrottledAndFailingPagesSyncTheSameRows(t *testing.T) {
	run := func(faults bool) (map[string]float64, int64) {
		f := livetest.Start(t, livetest.Config{})
		if faults {
			f.Meta.Scenario(metatest.Pages(3), metatest.RateLimit(4, 0), metatest.FailMidPaging(3))
			f.TikTok.Scenario(tiktoktest.Pages(3), tiktoktest.RateLimit(1, 0), tiktoktest.ServerError(1), tiktoktest.SystemError(1))
		}
		tg := newMemTarget()
		res, err := Run(context.Background(), Options{Connectors: f.Connectors, Target: tg, Now: duckdbtest.Now,
			Platforms: []string{catalog.MetaAds, catalog.TikTokAds}, Since: duckdbtest.Anchor.AddDate(0, 0, -20)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() != 0 {
			t.Fatalf("faults %v: %+v", faults, res.Accounts)
		}
		var requests int64
		for _, a := range res.Accounts {
			requests += a.Requests
		}
		return totals(tg), requests
	}
	clean, cleanRequests := run(false)
	faulty, faultyRequests := run(true)
	if faultyRequests <= cleanRequests {
		t.Errorf("%d requests with the faults, %d without: the faults were not met", faultyRequests, cleanRequests)
	}
	if len(clean) == 0 {
		t.Fatal("the clean sync wrote nothing")
	}
	for k, v := range clean {
		if faulty[k] != v {
			t.Errorf("%s: %v after the faults, %v without", k, faulty[k], v)
		}
	}
	if len(faulty) != len(clean) {
		t.Errorf("%d sums after the faults, %d without", len(faulty), len(clean))
	}
}

// totals are the warehouse's sums per account, day, set and measure, and its
// reach per account, grain and period.
func totals(tg *memTarget) map[string]float64 {
	out := map[string]float64{}
	for _, c := range tg.chunks {
		for _, f := range c.Facts {
			for m, v := range f.Measures {
				out[fmt.Sprintf("%s %s %s m%d", f.AccountID, f.Date.Format("2006-01-02"), f.BreakdownKey(), m)] += v
			}
		}
		for _, r := range c.Reach {
			out[fmt.Sprintf("%s %s %s %s reach", r.AccountID, r.ObjectID, r.Grain, r.PeriodStart.Format("2006-01-02"))] = float64(r.Reach)
		}
	}
	return out
}

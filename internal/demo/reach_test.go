package demo

import (
	"github.com/adsmcp/adsmcp/internal/catalog"
	"testing"
	"time"
)

type reachKey struct {
	id    string
	grain string
	t     time.Time
}

// TestReachConsistency checks the invariants reach.go promises on the small dataset.
func TestReachConsistency(t *testing.T) {
	s := generate(t, small)
	platform := map[string]string{}
	zero := map[string]bool{}
	for _, a := range s.accounts {
		platform[a.AccountID] = a.Platform
	}
	for _, spec := range accountSpecs {
		zero[spec.AccountID] = spec.zero
	}
	// Impressions per object and day, from the facts.
	type dayKey struct {
		id string
		t  time.Time
	}
	imps := map[dayKey]int64{}
	for i := range s.facts {
		f := &s.facts[i]
		imps[dayKey{f.AccountID, f.Date}] += int64(f.Measures[catalog.Impressions])
		if f.CampaignID != "" {
			imps[dayKey{f.CampaignID, f.Date}] += int64(f.Measures[catalog.Impressions])
		}
	}
	reach := map[reachKey]int64{}
	campaignsOf := map[string]map[string]bool{} // account → campaigns with reach
	for _, r := range s.reach {
		if p := platform[r.AccountID]; p != metaAds && p != tiktokAds {
			t.Fatalf("reach for a %s account", p)
		}
		if (r.Level == LevelAccount) != (r.ObjectID == r.AccountID) || (r.Level != LevelAccount && r.Level != LevelCampaign) {
			t.Fatalf("bad level/object: %+v", r)
		}
		switch r.Grain {
		case GrainDaily:
		case GrainWeekly:
			if r.PeriodStart.Weekday() != time.Monday {
				t.Fatalf("weekly period not starting on a Monday: %+v", r)
			}
		case GrainMonthly:
			if r.PeriodStart.Day() != 1 {
				t.Fatalf("monthly period not starting on the 1st: %+v", r)
			}
		default:
			t.Fatalf("grain %q", r.Grain)
		}
		k := reachKey{r.ObjectID, r.Grain, r.PeriodStart}
		if _, dup := reach[k]; dup {
			t.Fatalf("duplicate reach row %+v", r)
		}
		reach[k] = r.Reach
		if zero[r.AccountID] {
			if r.Reach != 0 {
				t.Fatalf("all-zero account has reach %+v", r)
			}
			continue
		}
		if r.Reach <= 0 {
			t.Fatalf("non-positive reach %+v", r)
		}
		if r.Grain == GrainDaily && r.Reach > imps[dayKey{r.ObjectID, r.PeriodStart}] {
			t.Fatalf("daily reach %d above the day's %d impressions: %+v", r.Reach, imps[dayKey{r.ObjectID, r.PeriodStart}], r)
		}
		if r.Level == LevelCampaign {
			if campaignsOf[r.AccountID] == nil {
				campaignsOf[r.AccountID] = map[string]bool{}
			}
			campaignsOf[r.AccountID][r.ObjectID] = true
		}
	}
	if len(campaignsOf) < 8 {
		t.Fatalf("reach for campaigns of only %d accounts", len(campaignsOf))
	}

	// Period reach between the max and the sum of the daily reach it covers.
	type bounds struct{ mx, sum int64 }
	period := map[reachKey]*bounds{}
	for k, v := range reach {
		if k.grain != GrainDaily {
			continue
		}
		for _, g := range []struct {
			grain string
			t     time.Time
		}{{GrainWeekly, isoMonday(k.t)}, {GrainMonthly, monthStart(k.t)}} {
			pk := reachKey{k.id, g.grain, g.t}
			b := period[pk]
			if b == nil {
				b = &bounds{}
				period[pk] = b
			}
			b.mx, b.sum = max(b.mx, v), b.sum+v
		}
	}
	for k, v := range reach {
		if k.grain == GrainDaily {
			continue
		}
		b := period[k]
		if b == nil {
			t.Fatalf("period reach without daily reach: %+v", k)
		}
		if v < b.mx || v > b.sum {
			t.Fatalf("%s reach %d of %s outside [max daily %d, sum daily %d]", k.grain, v, k.id, b.mx, b.sum)
		}
	}
	if len(period) != countCoarse(reach) {
		t.Fatalf("%d periods have daily reach, %d period rows", len(period), countCoarse(reach))
	}

	// Account reach between its largest campaign's and the sum of its campaigns',
	// for every grain; and a month at least its largest week fully inside it.
	checked := 0
	for acct, camps := range campaignsOf {
		for k, v := range reach {
			if k.id != acct {
				continue
			}
			var mx, sum int64
			for c := range camps {
				cv := reach[reachKey{c, k.grain, k.t}]
				mx, sum = max(mx, cv), sum+cv
			}
			if v < mx || v > sum {
				t.Fatalf("account %s %s reach %d on %s outside [max campaign %d, sum %d]", acct, k.grain, v, k.t, mx, sum)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no account reach checked")
	}
	for k, v := range reach {
		if k.grain != GrainWeekly || k.t.Month() != k.t.AddDate(0, 0, 6).Month() {
			continue
		}
		if m, ok := reach[reachKey{k.id, GrainMonthly, monthStart(k.t)}]; ok && m < v {
			t.Fatalf("%s: month reach %d below a week's %d inside it (%s)", k.id, m, v, k.t)
		}
	}
}

func countCoarse(reach map[reachKey]int64) int {
	n := 0
	for k := range reach {
		if k.grain != GrainDaily {
			n++
		}
	}
	return n
}

// The formula's edge cases: one day, identical days.
func TestCombine(t *testing.T) {
	if got := combine(100, 100, 0.3); got != 100 {
		t.Errorf("one day: %d", got)
	}
	if got := combine(100, 300, 0.25); got != 150 {
		t.Errorf("combine(100, 300, 0.25) = %d, want 150", got)
	}
}

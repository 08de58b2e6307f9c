package tiktok

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRequestsSplitBySpan: a daily query is one report per 30 days (the
// daily span limit, which the fake enforces), a monthly one one per calendar
// month, a total one per 365 days; each span's dates lie in the range.
func TestRequestsSplitBySpan(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	for _, tc := range []struct {
		raw  string
		want int
	}{
		{`{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-30"}}`, 1},
		{`{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-31"}}`, 2},
		{`{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_range":{"start":"2025-12-01","end":"2026-02-28"}}`, 3},
		{`{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_range":{"start":"2025-06-15","end":"2026-02-10"}}`, 9},
		{`{"metrics":["spend"],"dimensions":["campaign_name"],"date_range":{"start":"2025-02-01","end":"2026-03-01"}}`, 2},
	} {
		q := normalize(t, accounts, tc.raw)
		f.srv.ClearRequests()
		got, calls, err := f.run(context.Background(), t, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if got != warehouseCSV(t, q) {
			t.Errorf("%s: differs from the warehouse", tc.raw)
		}
		reqs := reports(f.srv.Requests())
		if len(reqs) != tc.want || calls != tc.want {
			t.Errorf("%s: %d reports (%d calls), want %d", tc.raw, len(reqs), calls, tc.want)
		}
		var prev time.Time
		for _, r := range reqs {
			s, _ := time.Parse(time.DateOnly, r.Params.Get("start_date"))
			e, _ := time.Parse(time.DateOnly, r.Params.Get("end_date"))
			days := int(e.Sub(s).Hours()/24) + 1
			if s.Before(q.Start) || e.After(q.End) || !prev.IsZero() && !s.Equal(prev.AddDate(0, 0, 1)) || days > MaxSpan ||
				strings.Contains(r.Params.Get("dimensions"), "stat_time_day") && days > MaxDailySpan {
				t.Errorf("%s: span %s … %s", tc.raw, s.Format(time.DateOnly), e.Format(time.DateOnly))
			}
			prev = e
		}
		if !prev.Equal(q.End) {
			t.Errorf("%s: the spans end on %s, not the range's end", tc.raw, prev.Format(time.DateOnly))
		}
	}
}

// TestRequestsSplitByIDs: an IN filter of more than 100 IDs is sent in sets
// of at most 100 (the fake refuses more, with 40002), one report per set, and
// the numbers are the warehouse's.
func TestRequestsSplitByIDs(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	// The advertiser's real ads among IDs of ads that do not exist (which
	// match no row, here as in the warehouse): more than two sets' worth.
	ids := f.srv.Ads("7201845539016472318")
	if len(ids) == 0 {
		t.Fatal("no ads")
	}
	for i := 0; len(ids) < 2*MaxFilterIDs+5; i++ {
		ids = append(ids, fmt.Sprintf("17000000000000%05d", i))
	}
	values, _ := json.Marshal(ids)
	raw := fmt.Sprintf(`{"metrics":["spend","clicks"],"dimensions":["ad_id"],"date_preset":"last_30d","filters":[{"field":"ad_id","operator":"IN","value":%s}]}`, values)
	q := normalize(t, accounts, raw)
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("split requests differ from the warehouse")
	}
	reqs := reports(f.srv.Requests())
	if len(reqs) != 3 || calls != 3 {
		t.Fatalf("%d reports, %d calls: want 3 (100 + 100 + 5 IDs)", len(reqs), calls)
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		var filters []reportFilter
		var chunk []string
		if json.Unmarshal([]byte(r.Params.Get("filtering")), &filters) != nil || len(filters) != 1 || json.Unmarshal([]byte(filters[0].FilterValue), &chunk) != nil {
			t.Fatalf("filtering %q", r.Params.Get("filtering"))
		}
		if len(chunk) > MaxFilterIDs || filters[0].FieldName != "ad_ids" {
			t.Errorf("a filter of %d %s", len(chunk), filters[0].FieldName)
		}
		for _, id := range chunk {
			seen[id] = true
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("%d distinct IDs sent, want %d", len(seen), len(ids))
	}
}

// TestRequestsReach: reach is one report per week or month (TikTok has no
// weekly or monthly time dimension) and one per 30 days of daily reach, at the
// campaign or advertiser level, beside the facts' reports.
func TestRequestsReach(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	for _, tc := range []struct {
		raw          string
		facts, reach int
	}{
		{`{"metrics":["spend","reach"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`, 4, 4},
		{`{"metrics":["impressions","reach"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_range":{"start":"2026-01-05","end":"2026-02-01"}}`, 1, 4},
		{`{"metrics":["reach"],"dimensions":["account_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-02-09"}}`, 2, 2},
	} {
		q := normalize(t, accounts, tc.raw)
		f.srv.ClearRequests()
		got, _, err := f.run(context.Background(), t, q)
		if err != nil {
			t.Fatal(err)
		}
		if got != warehouseCSV(t, q) {
			t.Errorf("%s: differs from the warehouse", tc.raw)
		}
		facts, reach := 0, 0
		for _, r := range reports(f.srv.Requests()) {
			if r.Params.Get("metrics") == `["reach"]` {
				reach++
			} else {
				facts++
			}
		}
		if facts != tc.facts || reach != tc.reach {
			t.Errorf("%s: %d fact reports and %d reach reports, want %d and %d", tc.raw, facts, reach, tc.facts, tc.reach)
		}
	}
}

// TestDeviceMapping: TikTok's platform (ANDROID, IOS, PC) maps onto mobile
// and desktop; TikTok has no tablet, so the warehouse's tablet rows are the
// connector's mobile ones: mobile + tablet and desktop agree exactly.
func TestDeviceMapping(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), `{"metrics":["impressions"],"dimensions":["device"],"platforms":["tiktok_ads"],"date_preset":"last_30d"}`)
	got, _, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	sums := func(csv string) map[string]string {
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
			k, v, _ := strings.Cut(line, ",")
			out[k] = v
		}
		return out
	}
	g, w := sums(got), sums(warehouseCSV(t, q))
	var mobile, tablet, conn int
	fmt.Sscan(w["mobile"], &mobile)
	fmt.Sscan(w["tablet"], &tablet)
	fmt.Sscan(g["mobile"], &conn)
	if _, ok := g["tablet"]; ok || conn != mobile+tablet || tablet == 0 || g["desktop"] != w["desktop"] || g[""] != w[""] {
		t.Errorf("connector %v, warehouse %v", g, w)
	}
}

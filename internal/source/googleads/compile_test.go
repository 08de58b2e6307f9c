package googleads

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// TestCompileFollowsPlan: the rows' level is the plan's, not one the
// connector derives from the dimensions: a plan at ad level with no ad
// dimension (as a sync asks) reads ad_group_ad, and its rows carry their ads
// (the fake serves the demo's facts, some of which have no ad), per ISO week,
// summing to the account-level rows.
func TestCompileFollowsPlan(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	accts := h.accounts(t)
	q := normalize(t, accts, `{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["account_name"],"time_granularity":"weekly","date_range":{"start":"2026-02-04","end":"2026-03-03"}}`)
	spendOf := func(lp *live.Plan) (spend float64, facts int, ads int) {
		fetch, err := h.conn.Compile(lp)
		if err != nil || fetch == nil {
			t.Fatalf("Compile: %v, %v", fetch, err)
		}
		b := live.NewBatch()
		if err := fetch(context.Background(), accts[0], b); err != nil {
			t.Fatal(err)
		}
		_, _, adList, fs, _ := b.Snapshot()
		for _, f := range fs {
			if f.AccountID != accts[0].AccountID || f.Date.Weekday() != time.Monday && !f.Date.Equal(lp.Start) {
				t.Fatalf("fact %+v: want the account's, dated a Monday or the range's start", f)
			}
			if lp.Level < catalog.LevelAd && f.AdID != "" {
				t.Fatalf("fact finer than the plan's level: %+v", f)
			}
			spend += f.Measures[catalog.Spend]
		}
		return spend, len(fs), len(adList)
	}
	account, err := live.PlanFor(q, Platform)
	if err != nil {
		t.Fatal(err)
	}
	ad := *account
	ad.Level = catalog.LevelAd
	p, err := compile(&ad)
	if err != nil || p.resource != "ad_group_ad" || p.dateSegment != "segments.week" {
		t.Fatalf("ad-level weekly plan: %+v, %v", p, err)
	}
	total, accountFacts, _ := spendOf(account)
	adTotal, adFacts, adCount := spendOf(&ad)
	if total == 0 || math.Abs(adTotal-total) > 0.5 || adFacts <= accountFacts || adCount == 0 {
		t.Errorf("ad level: %d facts on %d ads, spend %v; account level: %d facts, spend %v", adFacts, adCount, adTotal, accountFacts, total)
	}
}

// TestCompileMapsPlan: what each plan asks becomes the GAQL Google needs.
func TestCompileMapsPlan(t *testing.T) {
	delivery, _ := catalog.BreakdownSetByKey(catalog.Delivery)
	actions, _ := catalog.BreakdownSetByKey("conversion_action")
	location, _ := catalog.SetFor(Platform, []string{"country"})
	start, end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	base := live.Plan{Platform: Platform, Start: start, End: end, Set: delivery, Measures: []string{"spend"}, Grain: fit.Total}
	with := func(mod func(*live.Plan)) *live.Plan {
		p := base
		mod(&p)
		return &p
	}
	for _, tc := range []struct {
		name string
		plan *live.Plan
		want string
	}{
		{"impressions always", with(func(p *live.Plan) { p.Level = catalog.LevelCampaign; p.Grain = fit.Monthly }),
			"SELECT campaign.id, campaign.name, campaign.advertising_channel_type, campaign.status, segments.month, metrics.cost_micros, metrics.impressions FROM campaign WHERE segments.date BETWEEN '2026-03-01' AND '2026-03-31'"},
		{"not reported left out", with(func(p *live.Plan) { p.Measures = []string{"link_clicks", "video_views_p100"} }),
			"SELECT customer.id, metrics.impressions FROM customer WHERE segments.date BETWEEN '2026-03-01' AND '2026-03-31'"},
		{"country per ad group", with(func(p *live.Plan) {
			p.Level, p.Set, p.Dimensions, p.Grain = catalog.LevelAdSet, location, []string{"country"}, fit.Daily
		}),
			"SELECT campaign.id, campaign.name, campaign.advertising_channel_type, campaign.status, ad_group.id, ad_group.name, user_location_view.country_criterion_id, segments.date, metrics.cost_micros, metrics.impressions FROM user_location_view WHERE segments.date BETWEEN '2026-03-01' AND '2026-03-31'"},
		{"conversions always with actions", with(func(p *live.Plan) {
			p.Level, p.Set, p.Measures, p.Dimensions = catalog.LevelCampaign, actions, []string{"conversion_value"}, []string{"conversion_action"}
		}),
			"SELECT campaign.id, campaign.name, campaign.advertising_channel_type, campaign.status, segments.conversion_action_name, metrics.conversions, metrics.conversions_value FROM campaign WHERE segments.date BETWEEN '2026-03-01' AND '2026-03-31'"},
	} {
		p, err := compile(tc.plan)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := p.gaql(); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
		if _, err := googleadstest.ParseQuery(p.gaql()); err != nil {
			t.Errorf("%s: the fake rejects the GAQL: %v", tc.name, err)
		}
	}

	// Google reports no reach: a plan of reach alone fetches nothing.
	h := newHarness(t, googleadstest.Config{})
	reach := with(func(p *live.Plan) {
		p.ReachOnly = true
		p.Reach = &live.Reach{Level: catalog.LevelAccount, Grain: fit.Total, First: start, Last: start}
	})
	if fetch, err := h.conn.Compile(reach); fetch != nil || err != nil {
		t.Errorf("reach alone: %v, %v; want nothing to fetch", fetch, err)
	}

	// Country at ad level, or from the delivery set: no GAQL query reports
	// it (the normalizer refuses such a query first, for every source).
	for _, lp := range []*live.Plan{
		with(func(p *live.Plan) {
			p.Level, p.Set, p.Dimensions = catalog.LevelAd, location, []string{"ad_name", "country"}
		}),
		with(func(p *live.Plan) { p.Level, p.Dimensions = catalog.LevelAdSet, []string{"adset_name", "country"} }),
	} {
		if _, err := h.conn.Compile(lp); err == nil {
			t.Errorf("%s at level %d with %v compiles", lp.Set.Key, lp.Level, lp.Dimensions)
		}
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("Compile sent %d requests", n)
	}
}

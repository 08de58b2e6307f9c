package meta

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// TestBreakdownSetRequestShape: each breakdown set is one Insights report per
// account with the breakdowns Meta documents for it, at campaign level when
// the query names campaigns and account level otherwise.
func TestBreakdownSetRequestShape(t *testing.T) {
	f := newFixture(t, nil)
	tok := f.srv.Token()
	week := `{"since":"2026-03-08","until":"2026-03-14"}`
	base := `"account_ids":["` + lumenUS + `"],"time_granularity":"daily","date_preset":"last_7d"`
	for _, tc := range []struct {
		name, query string
		want        map[string]string
	}{
		{"age and gender by campaign", `{"metrics":["spend","conversions"],"dimensions":["campaign_name","age","gender"],` + base + `}`,
			map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,spend,actions", "breakdowns": "age,gender", "action_attribution_windows": defaultWindows}},
		{"age alone by account", `{"metrics":["impressions"],"dimensions":["age"],` + base + `}`,
			map[string]string{"level": "account", "fields": "impressions", "breakdowns": "age"}},
		{"placement", `{"metrics":["spend"],"dimensions":["campaign_id","placement"],` + base + `}`,
			map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,spend", "breakdowns": "publisher_platform,platform_position"}},
		{"placement, device and publisher platform", `{"metrics":["clicks"],"dimensions":["device","placement","publisher_platform"],` + base + `}`,
			map[string]string{"level": "account", "fields": "clicks", "breakdowns": "publisher_platform,platform_position,impression_device"}},
		{"device and publisher platform by campaign", `{"metrics":["spend"],"dimensions":["campaign_id","device","publisher_platform"],` + base + `}`,
			map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,spend", "breakdowns": "publisher_platform,impression_device"}},
		{"device by account", `{"metrics":["impressions"],"dimensions":["device"],` + base + `}`,
			map[string]string{"level": "account", "fields": "impressions", "breakdowns": "impression_device"}},
		{"conversion action", `{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],` + base + `}`,
			map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,actions,action_values", "action_attribution_windows": defaultWindows}},
		{"conversion action by account: still per campaign", `{"metrics":["conversions"],"dimensions":["conversion_action"],` + base + `}`,
			map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,actions", "action_attribution_windows": defaultWindows}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs := f.fetchOne(t, tc.query)
			// One report; a later request can only be its next page.
			if len(reqs) == 0 || reqs[0].Path != "/v25.0/"+lumenUS+"/insights" || reqs[0].Params.Get("after") != "" {
				t.Fatalf("requests: %+v", reqs)
			}
			for _, r := range reqs[1:] {
				if r.Path != reqs[0].Path || r.Params.Get("after") == "" || r.Params.Get("breakdowns") != reqs[0].Params.Get("breakdowns") {
					t.Fatalf("request after the first is not its next page: %+v", r)
				}
			}
			tc.want["time_range"], tc.want["time_increment"], tc.want["limit"] = week, "1", "500"
			wantParams(t, reqs[0], tok, tc.want)
		})
	}
}

// defaultWindows is action_attribution_windows of a query with conversions
// and no attribution_window: the window Accounts states, asked explicitly.
const defaultWindows = `["7d_click","1d_view"]`

// TestBreakdownSetFacts: staged facts carry the set's key and values as the
// catalog writes them, per campaign, with no ad set or ad.
func TestBreakdownSetFacts(t *testing.T) {
	c, _ := New(Options{AccessToken: "x", ActionTypes: []string{"omni_purchase"}})
	p := &fetchPlan{start: day("2026-03-01"), end: day("2026-03-01"), increment: "1", set: "placement"}
	row := Row{DateStart: day("2026-03-01"), DateStop: day("2026-03-01"), CampaignID: "7", PublisherPlatform: "instagram",
		PlatformPosition: "instagram_stories", ImpressionDevice: "ipad", Age: "Unknown", Gender: "female", Numbers: map[string]int64{"spend": 1_500000}}
	fa, err := c.fact(p, "act_1", &row)
	if err != nil {
		t.Fatal(err)
	}
	if fa.Breakdown != "placement" || fa.Placement != "story" || fa.Device != "tablet" || fa.PublisherPlatform != "instagram" ||
		fa.Age != "unknown" || fa.Gender != "female" || fa.CampaignID != "7" || fa.AdSetID != "" || fa.Measures[catalog.Spend] != 1_500000 {
		t.Errorf("fact %+v", fa)
	}
	for in, want := range map[string]string{"feed": "feed", "facebook_stories": "story", "messenger_stories": "story", "facebook_reels": "reels",
		"instagram_reels": "reels", "instagram_explore": "explore", "instagram_explore_grid_home": "explore", "marketplace": "marketplace",
		"right_hand_column": "right_hand_column", "instream_video": "instream_video", "instagram_search": "search", "an_classic": "classic", "messenger_inbox": "inbox", "rewarded_video": "rewarded_video"} {
		if got := placementOf(in); got != want {
			t.Errorf("placementOf(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestConversionActionFacts: the configured action types' rows are exactly
// what conversions counts; other standard events are one row each, from one
// action type, never the sum of the several types Meta reports one event
// under; engagement actions are not conversion actions.
func TestConversionActionFacts(t *testing.T) {
	actions := []Action{{Type: "offsite_conversion.fb_pixel_purchase", Micros: 3e6}, {Type: "omni_purchase", Micros: 3e6}, {Type: "purchase", Micros: 3e6},
		{Type: "omni_add_to_cart", Micros: 9e6}, {Type: "offsite_conversion.fb_pixel_add_to_cart", Micros: 9e6}, {Type: "add_to_cart", Micros: 9e6},
		{Type: "omni_initiated_checkout", Micros: 4e6}, {Type: "offsite_conversion.fb_pixel_initiate_checkout", Micros: 4e6},
		{Type: "lead", Micros: 2e6}, {Type: "link_click", Micros: 50e6}, {Type: "video_view", Micros: 70e6}}
	values := []Action{{Type: "offsite_conversion.fb_pixel_purchase", Micros: 240_500000}, {Type: "omni_purchase", Micros: 240_500000}, {Type: "purchase", Micros: 240_500000},
		{Type: "add_to_cart", Micros: 700e6}}
	row := Row{DateStart: day("2026-03-01"), DateStop: day("2026-03-01"), CampaignID: "9",
		Actions: map[string][]Action{"actions": actions, "action_values": values}}
	for _, types := range [][]string{nil, {"omni_purchase"}, {"offsite_conversion.fb_pixel_purchase", "lead"}} {
		c, _ := New(Options{AccessToken: "x", ActionTypes: types})
		p := &fetchPlan{start: row.DateStart, end: row.DateStart, increment: "1", set: conversionActionSet}
		delivery, _ := c.fact(&fetchPlan{start: row.DateStart, end: row.DateStart, increment: "1"}, "act_1", &row)
		base, _ := c.fact(p, "act_1", &row)
		facts := c.conversionActionFacts(p, base, &row)
		got := map[string][2]float64{}
		var defConv, defValue float64
		for _, f := range facts {
			if f.Breakdown != conversionActionSet || f.CampaignID != "9" || f.Measures[catalog.Spend] != 0 || f.Measures[catalog.VideoViews] != 0 {
				t.Errorf("%v: fact %+v", types, f)
			}
			got[f.ConversionAction] = [2]float64{f.Measures[catalog.Conversions], f.Measures[catalog.ConversionValue]}
			if slices.Contains(c.conversionActionNames(), f.ConversionAction) {
				defConv += f.Measures[catalog.Conversions]
				defValue += f.Measures[catalog.ConversionValue]
			}
		}
		want := map[string][2]float64{"purchase": {3, 240_500000}, "add_to_cart": {9, 700e6}, "initiate_checkout": {4, 0}, "lead": {2, 0}}
		if len(got) != len(want) {
			t.Errorf("%v: conversion actions %v, want %v", types, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%v: %s = %v, want %v", types, k, got[k], v)
			}
		}
		if defConv != delivery.Measures[catalog.Conversions] || defValue != delivery.Measures[catalog.ConversionValue] {
			t.Errorf("%v: the default actions' rows (%v, %v) differ from conversions (%v, %v)", types, defConv, defValue,
				delivery.Measures[catalog.Conversions], delivery.Measures[catalog.ConversionValue])
		}
	}
}

// TestAccountsAttribution: accounts say their attribution and what
// conversions counts, by conversion_action names.
func TestAccountsAttribution(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.ActionTypes = []string{"omni_purchase", "offsite_conversion.fb_pixel_lead", "purchase"}
	})
	for _, a := range f.accounts(t) {
		if a.AttributionWindow != "7d_click_1d_view" || a.ConversionActions != "purchase, lead" {
			t.Errorf("%s: attribution %q, conversion actions %q", a.AccountID, a.AttributionWindow, a.ConversionActions)
		}
	}
}

// TestBreakdownCombinationRefused: a combination Meta does not report
// (country with device or publisher_platform: Insights API Breakdowns,
// "Combining breakdowns") is refused by the query layer, for every source
// alike (the warehouse too), before any request, naming the groups that go
// together; should Meta refuse one anyway, the account fails as rejected
// with the same fix.
func TestBreakdownCombinationRefused(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	f.srv.ClearRequests()
	for _, raw := range []string{
		`{"metrics":["spend"],"dimensions":["country","device"],"platforms":["meta_ads"],"date_preset":"last_7d"}`,
		`{"metrics":["spend"],"dimensions":["publisher_platform"],"platforms":["meta_ads"],"date_preset":"last_7d","filters":[{"field":"country","operator":"EQUALS","value":"US"}]}`,
	} {
		_, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: duckdbtest.Now, MaxAccounts: 20})
		var qe *query.Error
		if !errors.As(err, &qe) || len(qe.Problems) != 1 || qe.Problems[0].Field != "dimensions" ||
			!strings.Contains(qe.Problems[0].Problem, "Meta Ads cannot combine") || !strings.Contains(qe.Problems[0].Problem, "country") ||
			!strings.Contains(qe.Problems[0].Fix, "country (alone); device and publisher_platform; age and gender") {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	if len(f.srv.Requests()) != 0 {
		t.Errorf("%d requests", len(f.srv.Requests()))
	}
	apiErr, perr := ParseError([]byte(`{"error":{"message":"(#100) Current combination of data breakdown columns (action_type, country, impression_device) is invalid","type":"OAuthException","code":100,"fbtrace_id":"x"}}`))
	if perr != nil {
		t.Fatal(perr)
	}
	if kind, fix := f.conn.explainKind(apiErr); kind != string(source.Rejected) || !strings.Contains(fix, "country (alone); device and publisher_platform") {
		t.Errorf("Meta's own refusal: %s / %s", kind, fix)
	}
}

// fetchWindow fetches q's rows from one account under an attribution window
// (the plan's, as a query's attribution_window sets it) and returns the
// conversions and conversion value per campaign.
func fetchWindow(t *testing.T, f *fixture, q *query.Query, window string) map[string][2]float64 {
	t.Helper()
	p, err := compileQuery(f.conn, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.planWindows(window); err != nil {
		t.Fatal(err)
	}
	rows, err := f.conn.fetchAccount(context.Background(), p, q.Accounts[0])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for _, fa := range rows.facts {
		s := out[fa.CampaignID]
		s[0] += fa.Measures[catalog.Conversions]
		s[1] += fa.Measures[catalog.ConversionValue]
		out[fa.CampaignID] = s
	}
	return out
}

// TestAttributionWindows: an explicit window is sent as
// action_attribution_windows and read from the per-window values: the
// default window asked explicitly gives the default numbers, 7d_click and
// 1d_view add up to it, and a shorter window counts less.
func TestAttributionWindows(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), `{"metrics":["conversions","conversion_value"],"dimensions":["campaign_id"],"account_ids":["`+lumenUS+`"],"time_granularity":"daily","date_preset":"last_30d"}`)
	def := fetchWindow(t, f, q, "")
	f.srv.ClearRequests()
	explicit := fetchWindow(t, f, q, "1d_view,7d_click")
	reqs := requestsTo(f.srv.Requests(), "/insights", "")
	if len(reqs) != 1 || reqs[0].Params.Get("action_attribution_windows") != `["7d_click","1d_view"]` {
		t.Fatalf("requests: %+v", reqs)
	}
	click, view, short := fetchWindow(t, f, q, "7d_click"), fetchWindow(t, f, q, "1d_view"), fetchWindow(t, f, q, "1d_click")
	var total, shortTotal float64
	for id, d := range def {
		total += d[0]
		shortTotal += short[id][0]
		if explicit[id] != d {
			t.Errorf("campaign %s: 7d_click_1d_view %v, default %v", id, explicit[id], d)
		}
		if s := [2]float64{click[id][0] + view[id][0], click[id][1] + view[id][1]}; s != d {
			t.Errorf("campaign %s: 7d_click + 1d_view = %v, default %v", id, s, d)
		}
	}
	if len(def) == 0 || total == 0 || shortTotal >= total || shortTotal == 0 {
		t.Errorf("conversions: default %v, 1d_click %v over %d campaigns", total, shortTotal, len(def))
	}
}

// TestAttributionWindowRefusals: the connector refuses a window Meta does
// not report with age and gender, before any request, naming the fix; and
// the fake, like Meta, refuses the withdrawn view windows.
func TestAttributionWindowRefusals(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), `{"metrics":["conversions"],"dimensions":["age","gender"],"account_ids":["`+lumenUS+`"],"date_preset":"last_7d"}`)
	p, err := compileQuery(f.conn, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"28d_click", "7d_click_1d_ev"} {
		err := p.planWindows(w)
		var qe *query.Error
		if !errors.As(err, &qe) || qe.Problems[0].Field != "attribution_window" || !strings.Contains(qe.Problems[0].Fix, "7d_click_1d_view") {
			t.Errorf("%s with age and gender: %v", w, err)
		}
	}
	if err := p.planWindows("1d_click_1d_view"); err != nil {
		t.Errorf("1d_click_1d_view with age and gender: %v", err)
	}
	for _, w := range []string{"7d_view", "28d_view"} {
		v := url.Values{"access_token": {f.srv.Token()}, "fields": {"actions"}, "time_range": {`{"since":"2026-03-01","until":"2026-03-01"}`},
			"action_attribution_windows": {`["7d_click","` + w + `"]`}}
		resp, err := http.Get(f.srv.URL + "/v25.0/" + lumenUS + "/insights?" + v.Encode())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		e, perr := ParseError(body)
		if resp.StatusCode != 400 || perr != nil || e.Code != 100 || !strings.Contains(e.Message, "action_attribution_windows[1] must be one of") {
			t.Errorf("%s: HTTP %d %s", w, resp.StatusCode, body)
		}
		_, kind := f.conn.explainKind(e)
		if !strings.Contains(kind, "7d_view and 28d_view were withdrawn") {
			t.Errorf("%s: fix %q", w, kind)
		}
	}
}

// explainKind is explain's kind and fix for an API error.
func (c *Connector) explainKind(err error) (string, string) {
	kind, _, fix, _ := c.explain(err, "")
	return string(kind), fix
}

package tiktok

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

// conversionActionAccounts: the conversion_action queries leave out the
// demo's all-zero advertiser (7318862045571299861), whose rows the demo keeps
// with every measure zeroed, conversion actions included. TikTok reports
// events as metrics of a row, not as rows: an event counted zero times is no
// row of ours, so such rows cannot come through the connector.

// exactBreakdownQueries read the breakdown sets where TikTok's values are the
// warehouse's one for one: gender, age (the demo holds TikTok's own 55+
// bracket), placement with publisher_platform, conversion actions at every
// grain and level.
var exactBreakdownQueries = []string{
	`{"metrics":["spend","impressions","clicks","conversions","ctr","cpa"],"dimensions":["campaign_name","gender"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend","conversions","conversion_value"],"dimensions":["account_name","gender"],"platforms":["tiktok_ads"],"date_preset":"last_90d"}`,
	`{"metrics":["spend","impressions","conversions"],"dimensions":["account_name","age","gender"],"platforms":["tiktok_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-01-20"},"filters":[{"field":"age","operator":"IN","value":["18-24","25-34","35-44","45-54"]}]}`,
	`{"metrics":["spend","video_views"],"dimensions":["age"],"platforms":["tiktok_ads"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`,
	`{"metrics":["spend","impressions","clicks","conversions","conversion_value"],"dimensions":["campaign_id","age","gender"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend","impressions","clicks","cpm"],"dimensions":["placement"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend","conversions","roas"],"dimensions":["campaign_name","publisher_platform","placement"],"platforms":["tiktok_ads"],"date_preset":"last_30d"}`,
	// conversion actions (of the advertisers with conversions: see
	// conversionActionAccounts)
	`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"account_ids":["7201845539016472318","7254490217683350144"],"date_preset":"last_30d"}`,
	`{"metrics":["conversions","conversion_value"],"dimensions":["account_name","conversion_action"],"account_ids":["7201845539016472318","7254490217683350144"],"date_preset":"last_90d"}`,
	`{"metrics":["conversions","conversion_value"],"dimensions":["conversion_action"],"account_ids":["7201845539016472318","7254490217683350144"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"account_ids":["7201845539016472318","7254490217683350144"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-02-20"}}`,
	`{"metrics":["conversions"],"dimensions":["account_name","conversion_action"],"account_ids":["7201845539016472318","7254490217683350144"],"time_granularity":"monthly","date_range":{"start":"2025-06-15","end":"2026-02-10"},"filters":[{"field":"conversion_action","operator":"NOT_EQUALS","value":"complete_payment"}]}`,
}

// TestBreakdownsSameNumbers: the breakdown sets read through the connector
// against the fake (which serves the demo's own rows of each set in TikTok's
// format) give byte-identical CSV to the warehouse's, and the answers are
// not empty.
func TestBreakdownsSameNumbers(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	for _, raw := range exactBreakdownQueries {
		q := normalize(t, accounts, raw)
		got, _, err := f.run(context.Background(), t, q)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := warehouseCSV(t, q)
		if got != want || strings.Count(want, "\n") < 3 {
			t.Errorf("%s: the connector differs from the warehouse:\n%.900s\n---\n%.900s", raw, got, want)
		}
	}
}

// TestBreakdownsMapped: where TikTok's values are coarser than the
// warehouse's, the connector's rows are the warehouse's summed under the
// documented mapping and nothing else: AGE_55_100 is "55+" (the demo's
// 55-64 and 65+), and TikTok has no tablet (the demo's tablets are mobile).
func TestBreakdownsMapped(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	for _, tc := range []struct {
		raw  string
		dims []string
		norm func(col, v string) string
	}{
		{`{"metrics":["spend","impressions","clicks","conversions","conversion_value"],"dimensions":["campaign_id","age","gender"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
			[]string{"date", "campaign_id", "age", "gender"}, func(col, v string) string {
				if col == "age" && (v == "55-64" || v == "65+") {
					return "55+"
				}
				return v
			}},
		{`{"metrics":["spend","impressions","video_views"],"dimensions":["age"],"platforms":["tiktok_ads"],"date_preset":"last_90d"}`,
			[]string{"age"}, func(col, v string) string {
				if v == "55-64" || v == "65+" {
					return "55+"
				}
				return v
			}},
		{`{"metrics":["spend","impressions","clicks","conversions"],"dimensions":["campaign_id","placement","device"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
			[]string{"date", "campaign_id", "placement", "device"}, func(col, v string) string {
				if col == "device" && v == "tablet" {
					return "mobile"
				}
				return v
			}},
		{`{"metrics":["spend","impressions"],"dimensions":["account_name","publisher_platform","placement","device"],"platforms":["tiktok_ads"],"date_preset":"last_30d"}`,
			[]string{"account_name", "publisher_platform", "placement", "device"}, func(col, v string) string {
				if col == "device" && v == "tablet" {
					return "mobile"
				}
				return v
			}},
	} {
		q := normalize(t, accounts, tc.raw)
		got, err := live.New(nil, f.conn).Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		want, err := duckdbtest.Open(t).Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		a, b := sumsBy(t, got, tc.dims, q.Metrics, nil), sumsBy(t, want, tc.dims, q.Metrics, tc.norm)
		if len(a) == 0 || len(a) != len(b) {
			t.Errorf("%s: %d groups through the connector, %d in the warehouse (mapped)", tc.raw, len(a), len(b))
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok {
				t.Errorf("%s: %q only through the connector", tc.raw, k)
				continue
			}
			for i := range va {
				if math.Abs(va[i]-vb[i]) > 1e-6*max(1, math.Abs(vb[i])) {
					t.Errorf("%s: %q %s = %v through the connector, %v in the warehouse", tc.raw, k, q.Metrics[i], va[i], vb[i])
				}
			}
		}
		mapped := false
		for k := range a {
			mapped = mapped || strings.Contains(k, "55+") || strings.Contains(k, "mobile")
		}
		if !mapped {
			t.Errorf("%s: no mapped value in the answer", tc.raw)
		}
	}
}

// sumsBy sums a table's additive metric columns by its dimension values,
// each written through norm (nil: as is), keyed by the values joined.
func sumsBy(t *testing.T, tab *fit.Table, dims, metrics []string, norm func(col, v string) string) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	for i := range tab.Len() {
		var key []string
		for _, d := range dims {
			c := tab.Column(d)
			if c == nil {
				t.Fatalf("no column %s in %v", d, columnNames(tab))
			}
			v := c.Strings[i]
			if norm != nil {
				v = norm(d, v)
			}
			key = append(key, v)
		}
		k := strings.Join(key, "|")
		if out[k] == nil {
			out[k] = make([]float64, len(metrics))
		}
		for j, m := range metrics {
			c := tab.Column(m)
			if c == nil {
				t.Fatalf("no column %s in %v", m, columnNames(tab))
			}
			if !c.IsNull(i) {
				out[k][j] += c.Numbers[i]
			}
		}
	}
	return out
}

func columnNames(tab *fit.Table) []string {
	var out []string
	for _, c := range tab.Columns {
		out = append(out, c.Name)
	}
	return out
}

// TestDefaultActionIsConversions: the default action's rows (complete_payment,
// each advertiser's ConversionActions) equal exactly the conversions and
// conversion value the delivery query returns, campaign by campaign and day
// by day; the other events are extra rows.
func TestDefaultActionIsConversions(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	run := func(raw string) *fit.Table {
		tab, err := live.New(nil, f.conn).Query(context.Background(), normalize(t, accounts, raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return tab
	}
	dims, metrics := []string{"date", "campaign_id"}, []string{"conversions", "conversion_value"}
	byAction := run(`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_id","conversion_action"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_30d","filters":[{"field":"conversion_action","operator":"EQUALS","value":"complete_payment"}]}`)
	delivery := run(`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_id"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_30d","filters":[{"field":"conversions","operator":"GREATER_THAN","value":0}]}`)
	a, b := sumsBy(t, byAction, dims, metrics, nil), sumsBy(t, delivery, dims, metrics, nil)
	if len(a) == 0 || fmt.Sprint(sorted(a)) != fmt.Sprint(sorted(b)) {
		t.Errorf("complete_payment rows differ from the delivery conversions: %d vs %d campaign-days", len(a), len(b))
	}
	all := sumsBy(t, run(`{"metrics":["conversions"],"dimensions":["conversion_action"],"platforms":["tiktok_ads"],"date_preset":"last_30d"}`),
		[]string{"conversion_action"}, []string{"conversions"}, nil)
	for _, name := range []string{"complete_payment", "add_to_cart", "form_submit"} {
		if all[name] == nil || all[name][0] <= 0 {
			t.Errorf("no %s conversions in %v", name, all)
		}
	}
}

func sorted(m map[string][]float64) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprint(k, v))
	}
	sort.Strings(out)
	return out
}

// TestBreakdownRequestShapes: each set is asked the way TikTok reports it:
// age and gender, placement and platform as AUDIENCE dimensions per
// campaign (publisher_platform and placement are one TikTok dimension, sent
// once), conversion actions as the event metrics of a BASIC report per
// campaign, beside conversion and its value.
func TestBreakdownRequestShapes(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	for _, tc := range []struct {
		raw, reportType, dataLevel string
		dims                       []string
		metrics                    []string // among the metrics
	}{
		{`{"metrics":["spend"],"dimensions":["account_name","age","gender"],"time_granularity":"daily","date_preset":"last_7d"}`,
			"AUDIENCE", "AUCTION_CAMPAIGN", []string{"campaign_id", "age", "gender", "stat_time_day"}, []string{"spend"}},
		{`{"metrics":["impressions"],"dimensions":["gender"],"date_preset":"last_7d"}`,
			"AUDIENCE", "AUCTION_CAMPAIGN", []string{"campaign_id", "gender"}, []string{"impressions"}},
		{`{"metrics":["spend"],"dimensions":["publisher_platform","placement"],"date_preset":"last_7d"}`,
			"AUDIENCE", "AUCTION_CAMPAIGN", []string{"campaign_id", "placement"}, []string{"spend"}},
		{`{"metrics":["spend"],"dimensions":["campaign_name","placement","device"],"date_preset":"last_7d"}`,
			"AUDIENCE", "AUCTION_CAMPAIGN", []string{"campaign_id", "placement", "platform"}, []string{"campaign_name", "spend"}},
		{`{"metrics":["spend"],"dimensions":["publisher_platform","device"],"date_preset":"last_7d"}`,
			"AUDIENCE", "AUCTION_ADVERTISER", []string{"advertiser_id", "placement", "platform"}, []string{"spend"}},
		{`{"metrics":["conversions"],"dimensions":["conversion_action"],"date_preset":"last_7d"}`,
			"BASIC", "AUCTION_CAMPAIGN", []string{"campaign_id"},
			[]string{"conversion", "total_complete_payment_rate", "web_event_add_to_cart", "total_web_event_add_to_cart_value", "form", "total_form_value"}},
	} {
		q := normalize(t, accounts, tc.raw)
		f.srv.ClearRequests()
		if _, _, err := f.run(context.Background(), t, q); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		// A set kept per campaign also reads the advertiser's delivery (a
		// BASIC report per advertiser): what the set leaves out.
		var reqs, delivery []tiktoktest.Request
		for _, r := range reports(f.srv.Requests()) {
			if r.Params.Get("report_type") == "BASIC" && r.Params.Get("data_level") == "AUCTION_ADVERTISER" {
				delivery = append(delivery, r)
			} else {
				reqs = append(reqs, r)
			}
		}
		wantDelivery := 0
		if tc.dataLevel == "AUCTION_CAMPAIGN" {
			wantDelivery = 1
		}
		if len(reqs) != 1 || len(delivery) != wantDelivery {
			t.Fatalf("%s: %d reports of the set and %d of the delivery, want 1 and %d", tc.raw, len(reqs), len(delivery), wantDelivery)
		}
		p := reqs[0].Params
		var dims, metrics []string
		_ = json.Unmarshal([]byte(p.Get("dimensions")), &dims)
		_ = json.Unmarshal([]byte(p.Get("metrics")), &metrics)
		if p.Get("report_type") != tc.reportType || p.Get("data_level") != tc.dataLevel || !slices.Equal(dims, tc.dims) {
			t.Errorf("%s: report_type %s, data_level %s, dimensions %v; want %s, %s, %v", tc.raw, p.Get("report_type"), p.Get("data_level"), dims, tc.reportType, tc.dataLevel, tc.dims)
		}
		for _, m := range tc.metrics {
			if !slices.Contains(metrics, m) {
				t.Errorf("%s: metrics %v lack %s", tc.raw, metrics, m)
			}
		}
		if tc.reportType == "BASIC" && slices.Contains(metrics, "spend") {
			t.Errorf("%s: a conversion_action report asks spend: %v", tc.raw, metrics)
		}
	}
}

// TestAccountsAttribution: every advertiser reports TikTok's default
// attribution window and complete_payment as what conversions counts, as
// the demo's accounts (and so the warehouse) do.
func TestAccountsAttribution(t *testing.T) {
	f := newFixture(t, nil)
	got := f.accounts(t)
	want := f.srv.Accounts()
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d advertisers, want %d", len(got), len(want))
	}
	for i, a := range got {
		w := want[i]
		// The window is each ad group's, whatever the demo's ad groups use.
		if a.AttributionWindow != catalog.PerAdGroupWindow || a.ConversionActions != DefaultConversionAction ||
			a.ConversionActions != w.ConversionActions {
			t.Errorf("%s: window %q, actions %q; want %q and the demo's %q", a.AccountID, a.AttributionWindow, a.ConversionActions,
				catalog.PerAdGroupWindow, w.ConversionActions)
		}
	}
}

// TestAudienceValues: TikTok's age groups and genders as the catalog writes
// them.
func TestAudienceValues(t *testing.T) {
	for in, want := range map[string]string{"AGE_13_17": "13-17", "AGE_18_24": "18-24", "AGE_25_34": "25-34", "AGE_35_44": "35-44",
		"AGE_45_54": "45-54", "AGE_55_100": "55+", "NONE": "unknown", "": "unknown", "AGE_X": "age_x"} {
		if got := ageOf(in); got != want {
			t.Errorf("ageOf(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"MALE": "male", "FEMALE": "female", "NONE": "unknown", "GENDER_FEMALE": "female", "": "unknown", "x": "unknown"} {
		if got := genderOf(in); got != want {
			t.Errorf("genderOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFakeRefusesWhatItCannotServe: the fake answers 40002 for age with
// placement (its demographic rows hold no placement), age below campaign level and event metrics in an AUDIENCE
// report, as the connector's Rejected path expects of TikTok.
func TestFakeRefusesWhatItCannotServe(t *testing.T) {
	srv := tiktoktest.New(t)
	base := url.Values{"advertiser_id": {"7201845539016472318"}, "start_date": {"2026-01-01"}, "end_date": {"2026-01-07"}, "page_size": {"10"}}
	for _, tc := range []struct{ reportType, level, dims, metrics string }{
		{"AUDIENCE", "AUCTION_CAMPAIGN", `["campaign_id","age","placement"]`, `["spend"]`},
		{"AUDIENCE", "AUCTION_AD", `["ad_id","gender"]`, `["spend"]`},
		{"AUDIENCE", "AUCTION_CAMPAIGN", `["campaign_id","placement"]`, `["web_event_add_to_cart"]`},
		{"BASIC", "AUCTION_ADGROUP", `["adgroup_id"]`, `["form"]`},
		{"BASIC", "AUCTION_CAMPAIGN", `["campaign_id"]`, `["not_a_metric"]`},
	} {
		v := url.Values{}
		for k, x := range base {
			v[k] = x
		}
		v.Set("report_type", tc.reportType)
		v.Set("data_level", tc.level)
		v.Set("dimensions", tc.dims)
		v.Set("metrics", tc.metrics)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/open_api/v1.3/report/integrated/get/?"+v.Encode(), nil)
		req.Header.Set("Access-Token", srv.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Code int }
		_ = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if env.Code != tiktoktest.CodeInvalidParam {
			t.Errorf("%+v: code %d, want %d", tc, env.Code, tiktoktest.CodeInvalidParam)
		}
	}
}

// TestAttributionWindowRefusedOnTikTok: TikTok's reports take no window, so
// any attribution_window on TikTok advertisers read live is refused, naming
// the field and the ad groups' own settings — TikTok's default included,
// since an ad group may use another; the query without one answers.
func TestAttributionWindowRefusedOnTikTok(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	base := `{"metrics":["conversions"],"dimensions":["account_name"],"platforms":["tiktok_ads"],"date_preset":"last_30d"`
	for _, w := range []string{"1d_click", "7d_click_1d_view"} {
		_, err := query.ParseAndNormalize([]byte(base+`,"attribution_window":"`+w+`"}`), query.Options{Accounts: accounts, Now: duckdbtest.Now, MaxAccounts: 20})
		if err == nil || !strings.Contains(err.Error(), "attribution_window") || !strings.Contains(err.Error(), "each ad group's attribution setting") {
			t.Errorf("%s on TikTok: %v, want a refusal naming attribution_window and the ad groups' settings", w, err)
		}
	}
	plain, _, err := f.run(context.Background(), t, normalize(t, accounts, base+`}`))
	if err != nil || !strings.Contains(plain, "Skincare") {
		t.Errorf("without a window: %s (%v)", plain, err)
	}
}

// TestBreakdownRequestCounts: the breakdown sets split and page like the
// delivery rows: one report per 30 days with a daily grain, per calendar
// month with a monthly one, every page read, with the warehouse's numbers.
func TestBreakdownRequestCounts(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AdvertiserIDs = []string{"7201845539016472318"} })
	accounts := f.accounts(t)
	for _, tc := range []struct {
		raw   string
		pages int
		want  int
	}{
		{`{"metrics":["spend"],"dimensions":["age","gender"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-31"},"filters":[{"field":"age","operator":"NOT_IN","value":["55-64","65+","55+"]}]}`, 0, 2},
		{`{"metrics":["conversions","conversion_value"],"dimensions":["conversion_action"],"time_granularity":"weekly","date_range":{"start":"2025-12-01","end":"2026-02-28"}}`, 0, 3},
		{`{"metrics":["conversions"],"dimensions":["campaign_name","conversion_action"],"time_granularity":"monthly","date_range":{"start":"2025-10-15","end":"2026-02-10"}}`, 0, 5},
		{`{"metrics":["impressions","clicks"],"dimensions":["placement"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-30"}}`, 4, 4},
		{`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-30"}}`, 3, 3},
	} {
		q := normalize(t, accounts, tc.raw)
		f.srv.Scenario(tiktoktest.Pages(tc.pages))
		f.srv.ClearRequests()
		got, calls, err := f.run(context.Background(), t, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if want := warehouseCSV(t, q); got != want {
			t.Errorf("%s: differs from the warehouse:\n%.600s\n---\n%.600s", tc.raw, got, want)
		}
		// As many again for the advertiser's delivery, which the sets, kept
		// per campaign, need for what they leave out.
		if n := len(reports(f.srv.Requests())); n != 2*tc.want || calls != 2*tc.want {
			t.Errorf("%s: %d reports (%d calls), want %d for the set and as many for the delivery", tc.raw, n, calls, tc.want)
		}
	}
}

package meta

import (
	"context"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// sameNumbersQueries cover every grain, every level, the breakdowns, ID and
// text filters, metric filters, limits, and reach / frequency wherever the
// warehouse defines them.
var sameNumbersQueries = []string{
	// account totals, every additive metric and the ratios
	`{"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","video_views","ctr","cpc","cpm","cpa","roas","conversion_rate"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_90d"}`,
	// campaign daily
	`{"metrics":["spend","clicks","cpc"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_14d"}`,
	// weekly with partial weeks at both ends, across a year end
	`{"metrics":["spend","impressions","cpm","conversions"],"dimensions":["account_name","campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-01-20"}}`,
	// monthly with partial months
	`{"metrics":["spend","conversion_value","roas"],"dimensions":["account_id","currency"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-06-15","end":"2026-02-10"}}`,
	// quarterly with partial quarters (fetched as monthly rows), and reach,
	// which is not stored per quarter: left out alike
	`{"metrics":["spend","conversion_value","roas"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"quarterly","date_range":{"start":"2025-06-15","end":"2026-02-10"}}`,
	`{"metrics":["spend","reach","frequency"],"dimensions":["account_name"],"platforms":["meta_ads"],"time_granularity":"quarterly","date_range":{"start":"2025-10-01","end":"2025-12-31"}}`,
	// country breakdown with a metric filter, sort and limit
	`{"metrics":["spend","clicks"],"dimensions":["campaign_name","country"],"platforms":["meta_ads"],"date_preset":"last_30d","filters":[{"field":"spend","operator":"GREATER_THAN","value":50}],"sort":[{"field":"spend","direction":"desc"}],"limit":15}`,
	// device and publisher platform (Meta's device_platform set), by account
	// and by ad, daily, and filtered on a publisher platform
	`{"metrics":["spend","impressions","ctr"],"dimensions":["device","publisher_platform"],"platforms":["meta_ads"],"date_preset":"last_30d"}`,
	`{"metrics":["spend","clicks","conversions"],"dimensions":["ad_name","device"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly","date_preset":"last_30d","filters":[{"field":"publisher_platform","operator":"EQUALS","value":"instagram"}]}`,
	// ad level, daily
	`{"metrics":["spend","video_views"],"dimensions":["adset_name","ad_name"],"account_ids":["act_1015823746512093"],"time_granularity":"daily","date_preset":"last_7d"}`,
	// a metric from a list of actions other than "actions"
	`{"metrics":["video_views","video_views_p100"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly","date_preset":"last_30d"}`,
	// campaign objective and status (from /campaigns) with a text filter
	`{"metrics":["spend","conversions"],"dimensions":["campaign_objective","campaign_status"],"platforms":["meta_ads"],"date_preset":"last_90d","filters":[{"field":"campaign_status","operator":"NOT_EQUALS","value":"archived"}]}`,
	// a filter on a finer level than the dimensions
	`{"metrics":["spend"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_30d","filters":[{"field":"adset_name","operator":"CONTAINS","value":"a"}]}`,
	// reach and frequency: monthly and weekly per campaign, daily per account,
	// total over exactly one month, and a reach filter
	`{"metrics":["spend","reach","frequency"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`,
	`{"metrics":["impressions","reach","frequency"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-02-20"}}`,
	`{"metrics":["reach","frequency"],"dimensions":["account_name"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend","reach","frequency"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_range":{"start":"2026-01-01","end":"2026-01-31"}}`,
	`{"metrics":["reach"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-09-01","end":"2026-02-28"},"filters":[{"field":"reach","operator":"GREATER_THAN","value":1000}]}`,
	// reach where the warehouse has none (arbitrary range): left out alike
	`{"metrics":["spend","reach"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_30d"}`,
}

// breakdownSetQueries cover every breakdown set Meta reports besides
// delivery (age_gender, placement, conversion_action), by campaign and by
// account, daily and weekly.
var breakdownSetQueries = []string{
	`{"metrics":["spend","impressions","clicks","conversions","conversion_value","ctr","cpa"],"dimensions":["campaign_name","age"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_14d"}`,
	`{"metrics":["spend","conversions"],"dimensions":["account_name","gender"],"platforms":["meta_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-01-20"}}`,
	`{"metrics":["spend","impressions","link_clicks","conversion_value","roas"],"dimensions":["campaign_id","age","gender"],"platforms":["meta_ads"],"time_granularity":"weekly","date_preset":"last_30d"}`,
	`{"metrics":["spend","clicks"],"dimensions":["age","gender"],"platforms":["meta_ads"],"date_preset":"last_90d","filters":[{"field":"gender","operator":"EQUALS","value":"female"}]}`,
	`{"metrics":["spend","impressions","cpm"],"dimensions":["campaign_name","placement"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
	`{"metrics":["spend","clicks","conversions"],"dimensions":["account_name","placement","device","publisher_platform"],"platforms":["meta_ads"],"time_granularity":"weekly","date_preset":"last_30d"}`,
	`{"metrics":["impressions","video_views"],"dimensions":["placement"],"platforms":["meta_ads"],"date_preset":"last_90d"}`,
	`{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_14d"}`,
	`{"metrics":["conversions","conversion_value"],"dimensions":["account_name","conversion_action"],"platforms":["meta_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-10","end":"2026-01-20"}}`,
	`{"metrics":["conversions"],"dimensions":["conversion_action"],"platforms":["meta_ads"],"date_preset":"last_90d"}`,
}

// TestSameNumbersBreakdownSets: every breakdown set gives the warehouse's
// numbers through the connector, in one Insights report per account.
func TestSameNumbersBreakdownSets(t *testing.T) {
	f := newFixture(t, nil)
	wh := duckdbtest.Open(t)
	accounts := f.accounts(t)
	src := live.New(nil, f.conn)
	for _, raw := range breakdownSetQueries {
		q := normalize(t, accounts, raw)
		want, err := wh.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		f.srv.ClearRequests()
		calls := &source.Calls{}
		got, err := src.Query(source.WithCalls(context.Background(), calls), q)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		a, b := csvOf(t, got), csvOf(t, want)
		if a != b || got.RowsBeforeLimit != want.RowsBeforeLimit || want.Len() == 0 {
			t.Errorf("%s: the connector differs from the warehouse (%d vs %d rows):\n%.800s\n---\n%.800s", raw, got.Len(), want.Len(), a, b)
		}
		// At least one report per account (more: its pages of 500 fetched rows).
		if n := len(f.srv.Requests()); calls.N() != n || n < len(q.Accounts) {
			t.Errorf("%s: %d source calls counted, the fake received %d requests, for %d accounts and %d rows", raw, calls.N(), n, len(q.Accounts), got.Len())
		}
		t.Logf("%d requests, %d rows: %.90s", calls.N(), got.Len(), raw)
	}
}

// TestSameNumbersAsTheWarehouse: the same query answered through the
// connector against the fake (which serves the test warehouse's own demo
// data in the API's format) and by the warehouse gives byte-identical CSV at
// every grain, with reach wherever it is defined; and source_calls counts
// exactly the HTTP requests the fake received.
func TestSameNumbersAsTheWarehouse(t *testing.T) {
	f := newFixture(t, nil)
	wh := duckdbtest.Open(t)
	accounts := f.accounts(t)
	src := live.New(nil, f.conn)
	for _, raw := range sameNumbersQueries {
		q := normalize(t, accounts, raw)
		want, err := wh.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		f.srv.ClearRequests()
		calls := &source.Calls{}
		got, err := src.Query(source.WithCalls(context.Background(), calls), q)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		a, b := csvOf(t, got), csvOf(t, want)
		if a != b || got.RowsBeforeLimit != want.RowsBeforeLimit || want.Len() == 0 {
			t.Errorf("%s: the connector differs from the warehouse (%d vs %d rows):\n%.800s\n---\n%.800s", raw, got.Len(), want.Len(), a, b)
		}
		if n := len(f.srv.Requests()); calls.N() != n {
			t.Errorf("%s: %d source calls counted, the fake received %d requests", raw, calls.N(), n)
		}
		unstored := strings.Contains(raw, "last_30d") || strings.Contains(raw, `"quarterly"`)
		if strings.Contains(raw, `"reach"`) && !unstored && !hasValues(got, "reach") {
			t.Errorf("%s: expected reach values in the answer:\n%.400s", raw, a)
		}
	}
}

// hasValues reports whether a metric column exists and has a value.
func hasValues(tab *fit.Table, column string) bool {
	c := tab.Column(column)
	if c == nil {
		return false
	}
	for i := range c.Numbers {
		if !c.IsNull(i) {
			return true
		}
	}
	return false
}

package googleads

import (
	"context"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// sameNumbersQueries cover every grain, every fetch resource, partial first
// periods, metric filters and pushed-down and kept-back dimension filters.
var sameNumbersQueries = []string{
	// account totals over a year end (FROM customer, no date segment)
	`{"platforms":["google_ads"],"metrics":["spend","impressions","clicks","ctr","conversions","conversion_value","roas","video_views"],"dimensions":["account_name"],"date_range":{"start":"2025-11-01","end":"2026-01-31"}}`,
	// campaigns daily (FROM campaign, segments.date)
	`{"platforms":["google_ads"],"metrics":["spend","clicks","cpc","conversions"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-28"}}`,
	// weekly from a Wednesday (segments.week, the first week clipped)
	`{"platforms":["google_ads"],"metrics":["spend","conversions","cpa"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_range":{"start":"2025-12-03","end":"2026-01-20"}}`,
	// quarterly with partial quarters (fetched by segments.month)
	`{"platforms":["google_ads"],"metrics":["spend","clicks","cpc"],"dimensions":["campaign_name"],"time_granularity":"quarterly","date_range":{"start":"2025-09-17","end":"2026-02-10"}}`,
	// monthly with a partial first month (segments.month, clipped to the 17th)
	`{"platforms":["google_ads"],"metrics":["spend","impressions","cpm"],"dimensions":["account_name","campaign_objective","campaign_status"],"time_granularity":"monthly","date_range":{"start":"2025-09-17","end":"2026-02-10"}}`,
	// ad groups (FROM ad_group)
	`{"platforms":["google_ads"],"metrics":["spend","clicks","conversion_rate"],"dimensions":["campaign_name","adset_name","adset_id"],"date_preset":"last_30d"}`,
	// a metric filter on weekly rows (HAVING semantics, never pushed down)
	`{"platforms":["google_ads"],"metrics":["spend","clicks"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_preset":"last_90d","filters":[{"field":"spend","operator":"GREATER_THAN","value":50}]}`,
	// device breakdown (segments.device)
	`{"platforms":["google_ads"],"metrics":["spend","impressions","ctr"],"dimensions":["device"],"time_granularity":"monthly","date_range":{"start":"2025-10-01","end":"2026-03-14"}}`,
	// country breakdown per campaign (user_location_view)
	`{"platforms":["google_ads"],"metrics":["spend","clicks","conversion_value"],"dimensions":["campaign_name","country"],"date_preset":"last_30d"}`,
	// country per ad group with device and network (the location set), and a
	// country filter on a campaign query
	`{"platforms":["google_ads"],"metrics":["spend","clicks","conversions"],"dimensions":["adset_name","country","device","publisher_platform"],"time_granularity":"weekly","date_preset":"last_30d"}`,
	`{"platforms":["google_ads"],"metrics":["spend","impressions"],"dimensions":["campaign_name"],"date_preset":"last_30d","filters":[{"field":"country","operator":"IN","value":["US","CA"]}]}`,
	// publisher platform (segments.ad_network_type)
	`{"platforms":["google_ads"],"metrics":["spend","video_views","impressions"],"dimensions":["publisher_platform","account_id"],"date_preset":"last_90d"}`,
	// ads daily (FROM ad_group_ad) under a pushed-down name filter
	`{"platforms":["google_ads"],"metrics":["spend","clicks"],"dimensions":["ad_name","ad_id"],"time_granularity":"daily","date_preset":"last_7d","filters":[{"field":"campaign_name","operator":"CONTAINS","value":"s"}]}`,
	// enum and ID filters pushed down, a negative name filter kept back
	`{"platforms":["google_ads"],"metrics":["spend","impressions"],"dimensions":["campaign_name","device"],"date_preset":"last_90d","filters":[{"field":"campaign_status","operator":"IN","value":["active","Paused"]},{"field":"device","operator":"NOT_EQUALS","value":"TABLET"},{"field":"campaign_name","operator":"NOT_CONTAINS","value":"q"}]}`,
	// filters on fields that are not grouped by (fetched to be re-applied)
	`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["account_name"],"time_granularity":"weekly","date_preset":"last_30d","filters":[{"field":"device","operator":"IN","value":["mobile","desktop"]},{"field":"adset_name","operator":"STARTS_WITH","value":"brand +"}]}`,
	// LIKE escapes (%) and the i/k wildcards in pushed-down patterns
	`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["adset_name"],"date_preset":"last_30d","filters":[{"field":"adset_name","operator":"CONTAINS","value":"20% OFF"}]}`,
	`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["adset_name"],"time_granularity":"monthly","date_preset":"last_90d","filters":[{"field":"adset_name","operator":"EQUALS","value":"BRAND - MISSPELLINGS"}]}`,
	// top-N over the whole data
	`{"platforms":["google_ads"],"metrics":["spend","roas"],"dimensions":["campaign_name","account_name"],"date_range":{"start":"2025-02-08","end":"2026-03-14"},"sort":[{"field":"spend","direction":"desc"}],"limit":5}`,
}

// TestSameNumbersAsWarehouse: the same query over the fake Google API (through
// the connector and the live source) and over the test warehouse, built from
// the same demo data, gives byte-identical CSV.
func TestSameNumbersAsWarehouse(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	wh := duckdbtest.Open(t)
	src := live.New(nil, h.conn)
	accts := h.accounts(t)
	for _, raw := range sameNumbersQueries {
		q := normalize(t, accts, raw)
		want, err := wh.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var calls source.Calls
		got, err := src.Query(source.WithCalls(context.Background(), &calls), q)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		w, g := csvOf(t, want), csvOf(t, got)
		if w != g || got.RowsBeforeLimit != want.RowsBeforeLimit {
			t.Errorf("%s\nlive differs from the warehouse (%d vs %d rows): %s", raw, got.Len(), want.Len(), firstDiff(w, g))
		}
		if want.Len() == 0 {
			t.Errorf("%s: no rows: the query proves nothing", raw)
		}
		if want := callsPerAccount(q) * len(q.Accounts); calls.N() != want {
			t.Errorf("%s: %d source calls, want %d", raw, calls.N(), want)
		}
	}
}

// TestPagesGiveTheSameNumbers: results split into many searchStream batches
// read exactly as one batch.
func TestPagesGiveTheSameNumbers(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	accts := h.accounts(t)
	src := live.New(nil, h.conn)
	raw := sameNumbersQueries[1]
	q := normalize(t, accts, raw)
	one, err := src.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	h.fake.SetScenario(googleadstest.Scenario{BatchSize: 7})
	h.fake.ResetLog()
	many, err := src.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := csvOf(t, one), csvOf(t, many); a != b {
		t.Errorf("7-row batches differ from one batch: %s", firstDiff(a, b))
	}
	if n := len(h.fake.Requests()); n != len(accts) {
		t.Errorf("%d requests, want one searchStream per account (%d): batches are not requests", n, len(accts))
	}
	if !strings.Contains(csvOf(t, many), "\n") || many.Len() < 50 {
		t.Errorf("only %d rows: too few to span several 7-row batches", many.Len())
	}
}

// TestCountryLookup: a country criterion ID missing from the built-in table is
// looked up once with a geo_target_constant query, and the numbers still match.
func TestCountryLookup(t *testing.T) {
	h := newHarness(t, googleadstest.Config{GeoTargets: map[string]string{"US": "2999001"}})
	wh := duckdbtest.Open(t)
	accts := h.accounts(t)
	src := live.New(nil, h.conn)
	q := normalize(t, accts, `{"platforms":["google_ads"],"metrics":["spend","clicks"],"dimensions":["country"],"date_preset":"last_30d"}`)
	want, err := wh.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		h.fake.ResetLog()
		got, err := src.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := csvOf(t, want), csvOf(t, got); a != b {
			t.Errorf("differs from the warehouse: %s", firstDiff(a, b))
		}
	}
	// The second query found the lookup in the cache: no lookup request.
	if n, want := len(h.fake.Requests()), callsPerAccount(q)*len(accts); n != want {
		t.Errorf("%d requests on the second query, want %d (lookups cached)", n, want)
	}
}

// callsPerAccount are the requests per account a query sends: one, and one
// for the account's delivery when it reads a set made of campaigns' or ad
// groups' reports without a filter (what such a set leaves out: the live
// source's unattributed rows; the queries here filter only on values no
// such row has).
func callsPerAccount(q *query.Query) int {
	if s, ok := q.BreakdownSet(Platform); ok && s.PerObjectReports() && len(q.Filters) == 0 {
		return 2
	}
	return 1
}

// Package sourcetest is the shared source conformance suite: one set of query
// cases that every warehouse (DuckDB, PostgreSQL, ClickHouse) holding the
// same data must answer identically, down to the CSV bytes, hidden ratio parts,
// empty cells, row counts before the limit and notices.
package sourcetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Case is one query. In Args, $USD, $META and $ALL stand for the JSON list of
// the ids of (up to 10, the most a query takes) USD accounts, Meta accounts and
// accounts of every currency.
type Case struct {
	Name string
	Args string
}

// Cases cover every grain, ratios from summed parts, text filters (case-
// insensitive), metric filters with sort and limit, the currency column, and
// reach at account and campaign level, per period and in total. Dates fit the
// duckdbtest dataset (2025-02-08 … 2026-03-14).
var Cases = []Case{
	{"total ratios", `{"account_ids":$USD,"date_range":{"start":"2026-01-01","end":"2026-02-28"},"metrics":["spend","impressions","clicks","ctr","cpc","cpm","roas","conversion_rate","cpa"]}`},
	{"daily by campaign", `{"account_ids":$USD,"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend","ctr","link_clicks"],"time_granularity":"daily"}`},
	{"weekly across a year end", `{"account_ids":$USD,"date_range":{"start":"2025-11-20","end":"2026-02-10"},"dimensions":["campaign_id"],"metrics":["spend","clicks","cpm"],"time_granularity":"weekly"}`},
	// Meta reports country apart from device and publisher_platform
	// (catalog: its delivery rows carry country, its device_platform rows the
	// others): one query by device reads each platform's own set.
	{"monthly by country", `{"account_ids":$USD,"date_range":{"start":"2025-03-01","end":"2026-03-14"},"dimensions":["country"],"metrics":["spend","roas","conversion_rate","video_views"],"time_granularity":"monthly"}`},
	{"monthly by device and publisher platform", `{"account_ids":$USD,"date_range":{"start":"2025-03-01","end":"2026-03-14"},"dimensions":["device","publisher_platform"],"metrics":["spend","roas","conversion_rate","video_views"],"time_granularity":"monthly"}`},
	{"metric filter, sort, limit", `{"account_ids":$USD,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","ctr"],"filters":[{"field":"spend","operator":"GREATER_THAN","value":50}],"sort":[{"field":"spend","direction":"desc"}],"limit":5}`},
	{"ratio filter and ascending sort", `{"account_ids":$USD,"date_preset":"last_90d","dimensions":["adset_name"],"metrics":["cpc","clicks"],"filters":[{"field":"cpc","operator":"BETWEEN","value":[0.1,5]}],"sort":[{"field":"cpc"}],"limit":7}`},
	{"currency column", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","account_name"],"metrics":["spend","cpc","conversion_value"]}`},
	{"text filters", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","platform","device"],"metrics":["impressions","clicks"],"filters":[{"field":"device","operator":"IN","value":["MOBILE","Desktop"]},{"field":"publisher_platform","operator":"NOT_EQUALS","value":"FACEBOOK"},{"field":"campaign_status","operator":"NOT_EQUALS","value":"archived"}]}`},
	{"starts with, any case", `{"account_ids":$ALL,"date_preset":"last_90d","dimensions":["currency","campaign_name"],"metrics":["spend","cpc"],"filters":[{"field":"campaign_name","operator":"STARTS_WITH","value":"bRaNd"}]}`},
	{"ad names starting with", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","ad_name"],"metrics":["clicks","ctr"],"filters":[{"field":"ad_name","operator":"STARTS_WITH","value":"rsa - "}],"sort":[{"field":"clicks","direction":"desc"}],"limit":15}`},
	{"contains and not contains", `{"account_ids":$USD,"date_preset":"last_90d","dimensions":["ad_name"],"metrics":["spend"],"filters":[{"field":"adset_name","operator":"CONTAINS","value":"A"},{"field":"publisher_platform","operator":"NOT_CONTAINS","value":"NETWORK"}],"sort":[{"field":"ad_name"}],"limit":20}`},
	// Issue 12: a row with every asked-for dimension empty takes no place in
	// the top N (and comes after it); money ranked within each currency.
	{"limit over unattributed rows", `{"account_ids":$USD,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend"],"sort":[{"field":"spend","direction":"asc"}],"limit":4}`},
	{"limit within each currency", `{"account_ids":$ALL,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","clicks"],"sort":[{"field":"spend","direction":"desc"}],"limit":3}`},
	{"limit within each currency, daily", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["ad_name"],"metrics":["cpc"],"sort":[{"field":"cpc","direction":"asc"}],"limit":2,"time_granularity":"daily"}`},
	{"reach weekly per account", `{"account_ids":$META,"date_range":{"start":"2026-01-03","end":"2026-02-04"},"dimensions":["account_id"],"metrics":["reach","impressions","frequency"],"time_granularity":"weekly"}`},
	{"reach monthly per campaign", `{"account_ids":$META,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["campaign_name"],"metrics":["reach","frequency","spend"],"time_granularity":"monthly"}`},
	{"reach daily filtered", `{"account_ids":$META,"date_range":{"start":"2026-02-01","end":"2026-02-07"},"dimensions":["account_name"],"metrics":["reach","frequency"],"filters":[{"field":"reach","operator":"GREATER_THAN","value":5}],"time_granularity":"daily"}`},
	{"reach total over one month", `{"account_ids":$META,"date_range":{"start":"2026-01-01","end":"2026-01-31"},"dimensions":["account_id"],"metrics":["reach","frequency"]}`},
	{"reach left out", `{"account_ids":$META,"date_range":{"start":"2026-01-03","end":"2026-02-01"},"metrics":["reach","spend"]}`},
	{"reach alone, kept empty", `{"account_ids":$META,"date_range":{"start":"2026-01-03","end":"2026-02-01"},"metrics":["reach","frequency"]}`},
	{"reach alone over accounts, kept empty", `{"account_ids":$META,"date_range":{"start":"2026-01-01","end":"2026-01-31"},"metrics":["reach"]}`},
	{"metrics some platforms do not report", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","account_id"],"metrics":["link_clicks","reach","frequency"]}`},
	// Quarterly: calendar quarters, labelled YYYY-Qn; partial first and last
	// quarters across a year end, whole ones, the quarter presets, and reach,
	// which is not stored per quarter.
	{"quarterly across a year end, partial quarters", `{"account_ids":$USD,"date_range":{"start":"2025-02-08","end":"2026-03-14"},"dimensions":["campaign_name"],"metrics":["spend","clicks","ctr","cpa"],"time_granularity":"quarterly"}`},
	{"quarterly by currency and device, whole quarters", `{"account_ids":$ALL,"date_range":{"start":"2025-04-01","end":"2025-12-31"},"dimensions":["currency","device"],"metrics":["spend","roas","conversion_rate","video_views"],"time_granularity":"quarterly"}`},
	{"last quarter, quarterly, metric filter and limit", `{"account_ids":$USD,"date_preset":"last_quarter","dimensions":["campaign_name"],"metrics":["spend","cpc"],"filters":[{"field":"spend","operator":"GREATER_THAN","value":50}],"sort":[{"field":"spend","direction":"desc"}],"limit":5,"time_granularity":"quarterly"}`},
	{"this quarter, quarterly, sorted by quarter", `{"account_ids":$ALL,"date_preset":"this_quarter","dimensions":["currency","platform"],"metrics":["impressions","cpm"],"sort":[{"field":"quarter","direction":"desc"}],"time_granularity":"quarterly"}`},
	{"reach quarterly, not stored", `{"account_ids":$META,"date_range":{"start":"2025-10-01","end":"2025-12-31"},"dimensions":["account_id"],"metrics":["reach","frequency","impressions"],"time_granularity":"quarterly"}`},
	{"reach alone quarterly, kept empty", `{"account_ids":$META,"date_preset":"last_quarter","dimensions":["campaign_name"],"metrics":["reach"],"time_granularity":"quarterly"}`},
	{"a metric added after version 1's layout", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["platform","account_id"],"metrics":["video_views","video_views_p100"],"time_granularity":"weekly"}`},
	// Issue 17: breakdown sets (one per platform), conversions by action and
	// the attribution_window column.
	{"age and gender by campaign, weekly", `{"account_ids":$AGEGENDER,"date_preset":"last_30d","dimensions":["campaign_name","age","gender"],"metrics":["spend","impressions","ctr","cpa"],"time_granularity":"weekly"}`},
	{"age over every platform (Google's age view)", `{"account_ids":$ALL,"date_preset":"last_90d","dimensions":["currency","platform","age"],"metrics":["spend","clicks","conversions"],"sort":[{"field":"spend","direction":"desc"}]}`},
	{"gender filter with a metric filter", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","account_name"],"metrics":["spend","roas"],"filters":[{"field":"gender","operator":"EQUALS","value":"FEMALE"},{"field":"spend","operator":"GREATER_THAN","value":10}]}`},
	{"placement with publisher platform and device, monthly", `{"account_ids":$AGEGENDER,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["publisher_platform","placement","device"],"metrics":["spend","impressions","cpm","video_views"],"time_granularity":"monthly"}`},
	{"conversions by action and campaign, top 10", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["campaign_name","conversion_action"],"metrics":["conversions","conversion_value"],"sort":[{"field":"conversions","direction":"desc"}],"limit":10}`},
	{"conversions by action, daily", `{"account_ids":$ALL,"date_preset":"last_7d","dimensions":["platform","conversion_action"],"metrics":["conversions"],"time_granularity":"daily"}`},
	{"conversions under several windows get a column", `{"account_ids":$ALL,"date_preset":"last_30d","metrics":["spend","conversions","cpa"]}`},
	{"by attribution window, weekly", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["attribution_window"],"metrics":["conversions","conversion_value"],"time_granularity":"weekly"}`},
}

// EmptyCases select no facts: every source answers them with no row at all
// (not one row of empty sums).
var EmptyCases = []Case{
	{"total after the data ends", `{"account_ids":$ALL,"date_preset":"today","dimensions":["currency"],"metrics":["spend","ctr"]}`},
	{"total without groups after the data ends", `{"account_ids":$USD,"date_preset":"today","metrics":["spend","ctr","reach","frequency"]}`},
	{"total without groups, no match", `{"account_ids":$USD,"date_preset":"last_30d","metrics":["spend"],"filters":[{"field":"campaign_name","operator":"EQUALS","value":"no such campaign"}]}`},
}

// Run runs every case against want and got, which hold the same data, and
// fails where their answers differ. now is the clock for date presets.
func Run(t *testing.T, want, got source.Source, now time.Time) {
	run(t, want, got, now, Cases, ReconcileCases)
}

// RunWithout is Run without the cases that name any of fields (metrics or
// dimensions): for a warehouse of an older layout, which lacks their columns
// or data (a schema migration adds the columns).
func RunWithout(t *testing.T, want, got source.Source, now time.Time, fields ...string) {
	run(t, want, got, now, without(Cases, fields), without(ReconcileCases, fields))
}

// RunOnly compares want's and got's answers to the cases that name any of
// fields (each case selecting rows): for a warehouse whose migration
// derived their data.
func RunOnly(t *testing.T, want, got source.Source, now time.Time, fields ...string) {
	ctx := context.Background()
	accounts, err := want.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := slices.DeleteFunc(slices.Clone(Cases), func(c Case) bool { return !names(c, fields) })
	if len(cases) == 0 {
		t.Fatalf("no case names %v", fields)
	}
	runCases(t, want, got, accounts, caseLists(accounts), now, cases)
}

// without are the cases that name none of fields.
func without(cases []Case, fields []string) []Case {
	return slices.DeleteFunc(slices.Clone(cases), func(c Case) bool { return names(c, fields) })
}

// names: c names one of fields (a metric or a dimension).
func names(c Case, fields []string) bool {
	return slices.ContainsFunc(fields, func(m string) bool { return strings.Contains(c.Args, `"`+m+`"`) })
}

func run(t *testing.T, want, got source.Source, now time.Time, cases, reconcile []Case) {
	ctx := context.Background()
	accounts, err := want.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotAccounts, err := got.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprint(accounts), fmt.Sprint(gotAccounts); a != b {
		t.Fatalf("accounts differ:\nwant %s\ngot  %s", a, b)
	}
	lists := caseLists(accounts)
	runCases(t, want, got, accounts, lists, now, cases)
	runRollups(t, got, accounts, lists, now, cases)
	runEmpty(t, got, accounts, lists, now, EmptyCases)
	runSized(t, got, accounts, lists, now, cases)
	runCoverage(t, want, got, accounts)
	runReconcile(t, got, accounts, lists, now, reconcile)
}

// caseLists are the account lists cases name ($USD…), as JSON arrays.
func caseLists(accounts []ads.Account) map[string]string {
	return map[string]string{
		"$USD":  ids(accounts, func(a ads.Account) bool { return a.Currency == "USD" }),
		"$META": ids(accounts, func(a ads.Account) bool { return a.Platform == catalog.MetaAds }),
		"$ALL":  ids(mixed(accounts), func(ads.Account) bool { return true }),
		// Accounts of the platforms with age × gender and placement sets.
		"$AGEGENDER": ids(accounts, func(a ads.Account) bool { return a.Platform != catalog.GoogleAds }),
		"$GOOGLE":    ids(accounts, func(a ads.Account) bool { return a.Platform == catalog.GoogleAds }),
	}
}

// caseQuery is a case's arguments with the account lists filled in, and the
// query they normalize to.
func caseQuery(t *testing.T, c Case, accounts []ads.Account, lists map[string]string, now time.Time) (string, *query.Query) {
	t.Helper()
	raw := c.Args
	for k, v := range lists {
		raw = strings.ReplaceAll(raw, k, v)
	}
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatalf("normalize: %v", err)
	}
	return raw, q
}

func runEmpty(t *testing.T, got source.Source, accounts []ads.Account, lists map[string]string, now time.Time, cases []Case) {
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			raw, q := caseQuery(t, c, accounts, lists, now)
			g, err := got.Query(ctx, q)
			if err != nil {
				t.Fatalf("source under test: %v", err)
			}
			if g.Len() != 0 {
				t.Errorf("%s: %d rows, want none:\n%s", raw, g.Len(), Dump(t, g))
			}
		})
	}
}

// runCoverage compares the sources' coverage of every account, when both
// implement source.CoverageSource.
func runCoverage(t *testing.T, want, got source.Source, accounts []ads.Account) {
	w, ok1 := want.(source.CoverageSource)
	g, ok2 := got.(source.CoverageSource)
	if !ok1 || !ok2 {
		return
	}
	t.Run("coverage", func(t *testing.T) {
		ids := []string{"no-such-account"}
		for _, a := range accounts {
			ids = append(ids, a.AccountID)
		}
		a, err := w.Coverage(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.Coverage(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		if x, y := fmt.Sprint(a), fmt.Sprint(b); x != y || len(a) == 0 {
			t.Errorf("coverage differs:\nwant %s\ngot  %s", x, y)
		}
	})
}

func runCases(t *testing.T, want, got source.Source, accounts []ads.Account, lists map[string]string, now time.Time, cases []Case) {
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			raw, q := caseQuery(t, c, accounts, lists, now)
			w, err := want.Query(ctx, clone(q))
			if err != nil {
				t.Fatalf("reference source: %v", err)
			}
			g, err := got.Query(ctx, clone(q))
			if err != nil {
				t.Fatalf("source under test: %v", err)
			}
			if w.Len() == 0 {
				t.Errorf("the case selects no rows, so it proves little: %s", raw)
			}
			if a, b := Dump(t, w), Dump(t, g); a != b {
				t.Errorf("answers differ for %s\n--- want\n%s\n--- got\n%s", raw, a, b)
			}
		})
	}
}

func clone(q *query.Query) *query.Query { c := *q; return &c }

// Dump is everything a table says: its CSV, then every column (hidden ones
// too) with empty cells marked, the row count before the limit and the notices.
func Dump(t testing.TB, tab *fit.Table) string {
	var b bytes.Buffer
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Columns {
		if c.Role != fit.RoleMetric {
			continue
		}
		fmt.Fprintf(&b, "%s hidden=%v:", c.Name, c.Hidden)
		for i, v := range c.Numbers {
			if c.Null != nil && c.Null[i] {
				b.WriteString(" NULL")
			} else {
				fmt.Fprintf(&b, " %v", v)
			}
		}
		b.WriteString("\n")
	}
	notices, _ := json.Marshal(tab.Notices)
	fmt.Fprintf(&b, "rows_before_limit=%d grain=%s notices=%s\n", tab.RowsBeforeLimit, tab.Grain, notices)
	return b.String()
}

func ids(accounts []ads.Account, keep func(ads.Account) bool) string {
	var out []string
	for _, a := range accounts {
		if keep(a) && len(out) < 10 {
			out = append(out, a.AccountID)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// mixed orders accounts round-robin over their currencies, so that the first
// ten hold every currency there is.
func mixed(accounts []ads.Account) []ads.Account {
	var currencies []string
	by := map[string][]ads.Account{}
	for _, a := range accounts {
		if by[a.Currency] == nil {
			currencies = append(currencies, a.Currency)
		}
		by[a.Currency] = append(by[a.Currency], a)
	}
	var out []ads.Account
	for len(out) < len(accounts) {
		for _, c := range currencies {
			if len(by[c]) > 0 {
				out = append(out, by[c][0])
				by[c] = by[c][1:]
			}
		}
	}
	return out
}

package oracle

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// accountsOfPlatform are the sorted IDs of a platform's accounts.
func accountsOfPlatform(d *Data, platform string) []string {
	var out []string
	for id, a := range d.Accounts {
		if a.Platform == platform {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// pinned runs one call through the engine over the demo warehouse and
// checks every invariant that applies to it.
func pinned(t *testing.T, args string) *tcase {
	t.Helper()
	d := oracleData(t)
	e := &answer.Engine{Source: engineSource(t), Now: duckdbtest.Now}
	tc := run(t, e, t.Name(), &call{}, []byte(args))
	if tc.problem != "" {
		t.Fatalf("unreadable answer: %s\n%s", tc.problem, describe(tc))
	}
	for _, inv := range invariants {
		if inv.applies(tc) {
			for _, p := range inv.check(d, tc) {
				t.Errorf("%s: %s", inv.name, p)
			}
		}
	}
	if t.Failed() {
		t.Log(describe(tc))
	}
	return tc
}

// lastMonth is the data's last whole calendar month, as a date_range.
func lastMonth(d *Data) string {
	end := PeriodStart("monthly", d.Last).AddDate(0, 0, -1)
	return fmt.Sprintf(`{"start":%q,"end":%q}`, PeriodStart("monthly", end).Format(time.DateOnly), end.Format(time.DateOnly))
}

func jsonIDs(ids ...string) string { return `["` + strings.Join(ids, `","`) + `"]` }

// TestBreakdownAgeByCampaign: age by campaign over a Meta and a Google
// account reads Meta's age_gender rows and Google's age rows, and equals the
// oracle's sums of them.
func TestBreakdownAgeByCampaign(t *testing.T) {
	d := oracleData(t)
	meta, google := accountsOfPlatform(d, metaAds)[0], accountsOfPlatform(d, googleAds)[0]
	tc := pinned(t, `{"account_ids":`+jsonIDs(meta, google)+`,"date_range":`+lastMonth(d)+
		`,"dimensions":["campaign_name","age"],"metrics":["spend","clicks","impressions"]}`)
	if !tc.isCSV() {
		t.Fatalf("answered %s, want CSV rows", tc.head.Type)
	}
	ai := tc.tab.col("age")
	if ai < 0 {
		t.Fatalf("no age column: %v", tc.tab.header)
	}
	ages := map[string]bool{}
	for _, r := range tc.tab.rows {
		ages[r[ai]] = true
	}
	for _, want := range []string{"18-24", "65+"} {
		if !ages[want] {
			t.Errorf("no row of age %s: %v", want, ages)
		}
	}
	if ages[""] {
		t.Error("a row with an empty age: the query read delivery rows")
	}
}

// TestBreakdownPlacementOnGoogle: placement with a Google account is refused,
// naming the dimension to drop.
func TestBreakdownPlacementOnGoogle(t *testing.T) {
	d := oracleData(t)
	tc := pinned(t, `{"account_ids":`+jsonIDs(accountsOfPlatform(d, metaAds)[0], accountsOfPlatform(d, googleAds)[0])+
		`,"date_range":`+lastMonth(d)+`,"dimensions":["placement"],"metrics":["spend"]}`)
	if tc.head.Type != "invalid_query" {
		t.Fatalf("answered %q, want invalid_query", tc.head.Type)
	}
	ps := problemsOf(tc)
	if !slices.ContainsFunc(ps, func(p problemJSON) bool {
		return p.Field == "dimensions" && strings.Contains(p.text(), "drop placement")
	}) {
		t.Errorf("no problem on dimensions saying to drop placement: %+v", ps)
	}
}

// TestBreakdownConversionActionCPA: cpa needs spend, which conversion_action
// rows do not have: refused, naming the metrics that work.
func TestBreakdownConversionActionCPA(t *testing.T) {
	d := oracleData(t)
	tc := pinned(t, `{"account_ids":`+jsonIDs(accountsOfPlatform(d, metaAds)[0])+
		`,"date_range":`+lastMonth(d)+`,"dimensions":["conversion_action"],"metrics":["conversions","cpa"]}`)
	if tc.head.Type != "invalid_query" {
		t.Fatalf("answered %q, want invalid_query", tc.head.Type)
	}
	ps := problemsOf(tc)
	if !slices.ContainsFunc(ps, func(p problemJSON) bool {
		return p.Field == "metrics" && slices.Contains(p.Valid, "conversions") && slices.Contains(p.Valid, "conversion_value") && strings.Contains(p.text(), "cpa")
	}) {
		t.Errorf("no problem on metrics naming cpa and the valid conversions, conversion_value: %+v", ps)
	}
}

// TestBreakdownConversionActionSums: by conversion_action, the rows of an
// account's default actions sum to its conversions.
func TestBreakdownConversionActionSums(t *testing.T) {
	d := oracleData(t)
	meta := accountsOfPlatform(d, metaAds)[0]
	tc := pinned(t, `{"account_ids":`+jsonIDs(meta)+`,"date_range":`+lastMonth(d)+
		`,"dimensions":["conversion_action"],"metrics":["conversions","conversion_value"]}`)
	if !tc.isCSV() {
		t.Fatalf("answered %s, want CSV rows", tc.head.Type)
	}
	total := pinned(t, `{"account_ids":`+jsonIDs(meta)+`,"date_range":`+lastMonth(d)+`,"metrics":["conversions"]}`)
	if !total.isCSV() || len(total.tab.rows) != 1 {
		t.Fatalf("the total answered %s", total.head.Type)
	}
	want, _ := cellValue(total.tab.rows[0][total.tab.col("conversions")])
	defaults := strings.Split(d.Accounts[meta].ConversionActions, ", ")
	var got float64
	for _, r := range tc.tab.rows {
		if slices.Contains(defaults, r[tc.tab.col("conversion_action")]) {
			v, _ := cellValue(r[tc.tab.col("conversions")])
			got += v
		}
	}
	if want == 0 || math.Abs(got-want) > 1e-6 {
		t.Errorf("conversions of the default actions %v sum to %v; the account's conversions are %v", defaults, got, want)
	}
}

// TestAttributionColumnMetaGoogle: conversions of Meta (7-day click, 1-day
// view) and Google (per conversion action) accounts are never summed: an
// attribution_window column is added, unless account_id splits them.
func TestAttributionColumnMetaGoogle(t *testing.T) {
	d := oracleData(t)
	ids := jsonIDs(accountsOfPlatform(d, metaAds)[0], accountsOfPlatform(d, googleAds)[0])
	tc := pinned(t, `{"account_ids":`+ids+`,"date_range":`+lastMonth(d)+`,"dimensions":["campaign_objective"],"metrics":["spend","conversions"]}`)
	if !tc.isCSV() {
		t.Fatalf("answered %s, want CSV rows", tc.head.Type)
	}
	wi := tc.tab.col("attribution_window")
	if wi < 0 {
		t.Fatalf("no attribution_window column: %v", tc.tab.header)
	}
	windows := map[string]bool{}
	for _, r := range tc.tab.rows {
		windows[r[wi]] = true
	}
	if !windows["7d_click_1d_view"] || !windows["per_conversion_action"] || len(windows) != 2 {
		t.Errorf("windows in the column: %v, want 7d_click_1d_view and per_conversion_action", windows)
	}
	split := pinned(t, `{"account_ids":`+ids+`,"date_range":`+lastMonth(d)+`,"dimensions":["account_id"],"metrics":["conversions"]}`)
	if split.isCSV() && split.tab.col("attribution_window") >= 0 {
		t.Errorf("an answer by account_id gained an attribution_window column: %v", split.tab.header)
	}
	spend := pinned(t, `{"account_ids":`+ids+`,"date_range":`+lastMonth(d)+`,"metrics":["spend"]}`)
	if spend.isCSV() && spend.tab.col("attribution_window") >= 0 {
		t.Errorf("an answer without conversions gained an attribution_window column: %v", spend.tab.header)
	}
}

// TestAttributionWindowArgument: the warehouse answers under a window only
// when every account holds it; Google refuses any.
func TestAttributionWindowArgument(t *testing.T) {
	warehouseOnly(t)
	d := oracleData(t)
	meta, google := accountsOfPlatform(d, metaAds)[0], accountsOfPlatform(d, googleAds)[0]
	held := d.Accounts[meta].AttributionWindow
	if held == "" {
		t.Fatalf("account %s has no attribution window", meta)
	}
	ok := pinned(t, `{"account_ids":`+jsonIDs(meta)+`,"date_range":`+lastMonth(d)+`,"metrics":["conversions"],"attribution_window":"`+held+`"}`)
	if !ok.isCSV() {
		t.Errorf("the window the account holds: answered %s", ok.head.Type)
	}
	for _, args := range []string{
		`{"account_ids":` + jsonIDs(meta) + `,"date_range":` + lastMonth(d) + `,"metrics":["conversions"],"attribution_window":"28d_click"}`,
		`{"account_ids":` + jsonIDs(meta, google) + `,"date_range":` + lastMonth(d) + `,"metrics":["conversions"],"attribution_window":"` + held + `"}`,
	} {
		if tc := pinned(t, args); tc.head.Type != "invalid_query" {
			t.Errorf("%s: answered %q, want invalid_query", args, tc.head.Type)
		}
	}
}

// TestBreakdownSetsSumToDelivery checks the generated data directly: the
// rows of every per-campaign set other than conversion_action sum, per
// campaign and day, to the delivery rows' measures (delivery rows without a
// campaign, the account's artifacts, are in no such set); a set kept per ad
// (Meta's device_platform) per ad and day, artifacts included; a set kept
// per ad group (Google's location) per campaign and day, without ads;
// conversion_action's rows of the account's default actions to its
// conversions and conversion_value; every per-campaign set row has its
// set's dimensions and no ad set or ad.
func TestBreakdownSetsSumToDelivery(t *testing.T) {
	warehouseOnly(t)
	d := oracleData(t)
	type key struct {
		campaign, adset, ad string
		day                 time.Time
	}
	sumBy := func(fs []Fact, perAd bool, keep func(f *Fact) bool) map[key]*Sums {
		out := map[key]*Sums{}
		for i := range fs {
			f := &fs[i]
			if keep != nil && !keep(f) {
				continue
			}
			k := key{campaign: f.Dims[DimIndex("campaign_id")], day: f.Date}
			if perAd {
				k.adset, k.ad = f.Dims[DimIndex("adset_id")], f.Dims[DimIndex("ad_id")]
			}
			if out[k] == nil {
				out[k] = &Sums{}
			}
			out[k].add(&f.Sums)
		}
		return out
	}
	checked := map[string]int{}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range d.Accounts {
			if !yield(id) {
				return
			}
		}
	}) {
		a := d.Accounts[id]
		for _, s := range SetTable {
			if s.Key == "delivery" || !slices.Contains(s.Platforms, a.Platform) {
				continue
			}
			delivery := sumBy(d.Facts[id], !s.OfReports(), nil)
			rows := d.Sets[s.Key][id]
			if len(rows) == 0 && len(d.Facts[id]) > 0 {
				t.Errorf("%s (%s): no %s rows", id, a.Platform, s.Key)
				continue
			}
			for i := range rows {
				f := &rows[i]
				if s.PerAdSet && f.Dims[DimIndex("ad_id")] != "" {
					t.Fatalf("%s: a %s row with an ad: %+v", id, s.Key, f.Dims)
				}
				if !s.PerCampaign {
					for _, dim := range BreakdownDims {
						if v := f.Dims[DimIndex(dim)]; v != "" && !slices.Contains(s.Dims, dim) {
							t.Fatalf("%s: a %s row with %s %q", id, s.Key, dim, v)
						}
					}
					continue
				}
				for _, dim := range s.Dims {
					if f.Dims[DimIndex(dim)] == "" {
						t.Fatalf("%s: a %s row without %s: %+v", id, s.Key, dim, f.Dims)
					}
				}
				for _, fine := range FinerThanCampaign {
					if f.Dims[DimIndex(fine)] != "" {
						t.Fatalf("%s: a %s row with %s %q", id, s.Key, fine, f.Dims[DimIndex(fine)])
					}
				}
			}
			measures := []catalog.Measure{}
			keep := func(*Fact) bool { return true }
			if s.Key == "conversion_action" {
				measures = []catalog.Measure{catalog.Conversions, catalog.ConversionValue}
				defaults := strings.Split(a.ConversionActions, ", ")
				keep = func(f *Fact) bool { return slices.Contains(defaults, f.Dims[DimIndex("conversion_action")]) }
			} else {
				for m := range catalog.NumMeasures {
					measures = append(measures, m)
				}
			}
			got := sumBy(rows, !s.OfReports(), keep)
			for k, want := range delivery {
				if k.campaign == "" && s.OfReports() {
					continue // the account's own artifacts: no campaign's report has them
				}
				g := got[k]
				if g == nil {
					g = &Sums{}
				}
				for _, m := range measures {
					if math.Abs(g.Measures[m]-want.Measures[m]) > 1e-6*(1+math.Abs(want.Measures[m])) {
						t.Errorf("%s %s campaign %s on %s: measure %d sums to %v, delivery has %v", id, s.Key, k.campaign, k.day.Format(time.DateOnly), m, g.Measures[m], want.Measures[m])
						break
					}
				}
				checked[s.Key]++
			}
			for k := range got {
				if delivery[k] == nil {
					t.Errorf("%s %s: rows for campaign %s on %s, which has no delivery", id, s.Key, k.campaign, k.day.Format(time.DateOnly))
				}
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("campaign-days checked per set: %v", checked)
	for _, s := range SetTable {
		if s.Key != "delivery" && checked[s.Key] == 0 {
			t.Errorf("set %s: nothing checked", s.Key)
		}
	}
}

// TestAttributionWindowWithReach: reach asked by attribution_window (an
// account-level dimension) is answered like reach by account_name. Found by
// TestProperty: the warehouse's reach join has no expression for
// attribution_window and DuckDB fails on "a.account_name AS d0,  AS d1".
func TestAttributionWindowWithReach(t *testing.T) {
	d := oracleData(t)
	meta := accountsOfPlatform(d, metaAds)[0]
	tc := pinned(t, `{"account_ids":`+jsonIDs(meta)+`,"date_range":`+lastMonth(d)+
		`,"dimensions":["account_name","attribution_window"],"metrics":["reach"],"time_granularity":"monthly"}`)
	if tc.head.Type != "" {
		t.Errorf("answered %s: %.300s", tc.head.Type, tc.head.Detail)
	}
}

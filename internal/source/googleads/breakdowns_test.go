package googleads

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// breakdownQueries cover the breakdown sets other than delivery (age,
// gender, conversion_action) by campaign and by account, at every grain, with
// pushed-down and kept-back filters and a metric filter.
var breakdownQueries = []string{
	// age by campaign, daily, every metric Google has
	`{"platforms":["google_ads"],"metrics":["spend","impressions","clicks","ctr","conversions","conversion_value","roas","video_views"],"dimensions":["campaign_name","age"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-28"}}`,
	// age by account, weekly from a Wednesday (segments.week, the first week clipped)
	`{"platforms":["google_ads"],"metrics":["spend","conversions","cpa"],"dimensions":["account_name","age"],"time_granularity":"weekly","date_range":{"start":"2025-12-03","end":"2026-01-20"}}`,
	// age alone over the whole data, with an age filter pushed down
	`{"platforms":["google_ads"],"metrics":["spend","clicks","cpc"],"dimensions":["age"],"date_range":{"start":"2025-02-08","end":"2026-03-14"},"filters":[{"field":"age","operator":"NOT_IN","value":["65+","unknown"]}]}`,
	// gender by campaign, weekly
	`{"platforms":["google_ads"],"metrics":["spend","impressions","cpm","conversion_value"],"dimensions":["campaign_name","gender"],"time_granularity":"weekly","date_preset":"last_90d"}`,
	// gender by account, monthly, a partial first month, gender and campaign filters pushed
	`{"platforms":["google_ads"],"metrics":["spend","conversions","conversion_rate"],"dimensions":["account_id","gender"],"time_granularity":"monthly","date_range":{"start":"2025-09-17","end":"2026-02-10"},"filters":[{"field":"gender","operator":"IN","value":["Female","male"]},{"field":"campaign_status","operator":"NOT_EQUALS","value":"archived"}]}`,
	// gender as a filter only, quarterly by campaign
	`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"quarterly","date_range":{"start":"2025-09-17","end":"2026-02-10"},"filters":[{"field":"gender","operator":"EQUALS","value":"unknown"}]}`,
	// conversion actions by campaign, daily
	`{"platforms":["google_ads"],"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-28"}}`,
	// conversion actions by account, weekly
	`{"platforms":["google_ads"],"metrics":["conversions","conversion_value"],"dimensions":["account_name","conversion_action"],"time_granularity":"weekly","date_preset":"last_90d"}`,
	// conversion actions in total, under a metric filter and a kept-back name filter
	`{"platforms":["google_ads"],"metrics":["conversions"],"dimensions":["campaign_name","conversion_action"],"date_preset":"last_30d","filters":[{"field":"conversions","operator":"GREATER_THAN","value":1},{"field":"campaign_name","operator":"NOT_CONTAINS","value":"zzz"}]}`,
	// one conversion action by campaign, monthly
	`{"platforms":["google_ads"],"metrics":["conversion_value"],"dimensions":["campaign_name"],"time_granularity":"monthly","date_preset":"last_90d","filters":[{"field":"conversion_action","operator":"EQUALS","value":"purchase"}]}`,
}

// TestBreakdownSetsSameNumbers: every breakdown query over the fake API (one
// searchStream per account for the set, one for the account's delivery)
// gives byte-identical CSV to the test warehouse.
func TestBreakdownSetsSameNumbers(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	wh := duckdbtest.Open(t)
	src := live.New(nil, h.conn)
	accts := h.accounts(t)
	for _, raw := range breakdownQueries {
		q := normalize(t, accts, raw)
		want, err := wh.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		h.fake.ResetLog()
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
		// One request per account for the set, and one per account for
		// its delivery (FROM customer, what the per-campaign set leaves
		// out) unless a filter leaves out rows with no campaign or value.
		set, _ := q.BreakdownSet(Platform)
		var sets, delivery int
		for _, r := range h.fake.Requests() {
			switch {
			case strings.Contains(r.Query, " FROM "+setResources[set.Key]+" "):
				sets++
			case strings.Contains(r.Query, " FROM customer ") && !strings.Contains(r.Query, "segments.device"):
				delivery++
			default:
				t.Errorf("%s: set %s fetched with %s", raw, set.Key, r.Query)
			}
		}
		if sets != len(q.Accounts) || delivery != 0 && delivery != len(q.Accounts) || calls.N() != sets+delivery {
			t.Errorf("%s: %d source calls, %d for the set and %d for the delivery; want one per account (%d) for the set and none or as many for the delivery",
				raw, calls.N(), sets, delivery, len(q.Accounts))
		}
	}
}

// TestViewRowsSummedPerCampaign: age_range_view and gender_view answer a row
// per ad group and criterion; the connector stages one fact per campaign,
// date and value, marked with its set, without ad group or ad.
func TestViewRowsSummedPerCampaign(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	accts := h.accounts(t)
	for _, set := range []string{"age", "gender"} {
		q := normalize(t, accts, `{"platforms":["google_ads"],"metrics":["spend","clicks"],"dimensions":["campaign_name","`+set+`"],"time_granularity":"daily","date_preset":"last_30d"}`)
		p, err := compileQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, a := range q.Accounts {
			if err := h.conn.search(context.Background(), digits(a.AccountID), p.gaql(), func(rs []row) error {
				rows += len(rs)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		b := live.NewBatch()
		if err := live.Fetch(context.Background(), h.conn, q, q.Accounts, b); err != nil {
			t.Fatal(err)
		}
		_, _, _, facts, _ := b.Snapshot()
		if len(facts) == 0 || len(facts) >= rows {
			t.Fatalf("%s: %d rows became %d facts: want fewer facts than rows (rows per ad group summed)", set, rows, len(facts))
		}
		seen := map[string]bool{}
		for _, f := range facts {
			value := f.Age + f.Gender
			k := f.AccountID + f.CampaignID + f.Date.String() + value
			if f.Breakdown != set || f.CampaignID == "" || f.AdSetID != "" || f.AdID != "" || value == "" || seen[k] {
				t.Fatalf("%s: bad or repeated fact %+v", set, f)
			}
			seen[k] = true
		}
	}
}

// TestConversionActionRows: conversion-action facts hold conversions and
// their value only (other Google metrics 0, link clicks not reported), and
// the actions each account's conversions counts sum exactly to the delivery
// rows' conversions per campaign and day.
func TestConversionActionRows(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	accts := h.accounts(t)
	const rng = `"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-14"}`
	q := normalize(t, accts, `{"platforms":["google_ads"],"metrics":["conversions","conversion_value"],"dimensions":["campaign_id","conversion_action"],`+rng+`}`)
	b := live.NewBatch()
	if err := live.Fetch(context.Background(), h.conn, q, q.Accounts, b); err != nil {
		t.Fatal(err)
	}
	_, _, _, facts, _ := b.Snapshot()
	primary := map[string][]string{}
	for _, a := range accts {
		primary[a.AccountID] = strings.Split(a.ConversionActions, ", ")
	}
	type key struct{ account, campaign, date string }
	byAction := map[key][2]float64{}
	for _, f := range facts {
		if f.Breakdown != "conversion_action" || f.ConversionAction == "" {
			t.Fatalf("fact %+v", f)
		}
		for m, mf := range catalog.Measures() {
			switch {
			case mf.Name == "conversions" || mf.Name == "conversion_value":
			case !reported(mf.Name) && f.Measures[m] != ads.NotReported, reported(mf.Name) && f.Measures[m] != 0:
				t.Fatalf("%s = %v in a conversion-action fact", mf.Name, f.Measures[m])
			}
		}
		if slices.Contains(primary[f.AccountID], f.ConversionAction) {
			k := key{f.AccountID, f.CampaignID, f.Date.Format("2006-01-02")}
			s := byAction[k]
			s[0] += f.Measures[catalog.Conversions]
			s[1] += f.Measures[catalog.ConversionValue]
			byAction[k] = s
		}
	}
	dq := normalize(t, accts, `{"platforms":["google_ads"],"metrics":["conversions","conversion_value"],"dimensions":["campaign_id"],`+rng+`}`)
	db := live.NewBatch()
	if err := live.Fetch(context.Background(), h.conn, dq, dq.Accounts, db); err != nil {
		t.Fatal(err)
	}
	_, _, _, delivery, _ := db.Snapshot()
	checked := 0
	for _, f := range delivery {
		k := key{f.AccountID, f.CampaignID, f.Date.Format("2006-01-02")}
		want := [2]float64{f.Measures[catalog.Conversions], f.Measures[catalog.ConversionValue]}
		if byAction[k] != want {
			t.Errorf("%+v: the default actions sum to %v, delivery says %v", k, byAction[k], want)
		}
		if want[0] > 0 {
			checked++
		}
	}
	if checked == 0 {
		t.Error("no campaign-day with conversions: the test proves nothing")
	}
}

package sourcetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// UnicodeNow is the clock of UnicodeCases: the day after UnicodeData's last.
var UnicodeNow = time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)

// unicodeCampaigns are names in several scripts, with accents, case
// differences and an emoji: what case-insensitive matching and byte-order
// sorting must treat alike on every engine.
var unicodeCampaigns = []string{
	"Été 2026 — Promoción", "ÉCOLE Ñandú", "Σοφία Campaign", "Журнал Весна", "naïve café",
	"plain ascii", "🎉 Launch Ünïcödé", "ÀÖ Outlet", "école ñandú",
}

// UnicodeData is a small dataset whose account, campaign, ad set and ad
// names are not ASCII: two Meta accounts in EUR, one ad per campaign, 30 days
// in January 2026 with numbers derived from the indexes.
func UnicodeData(ctx context.Context, sink ads.Sink) error {
	accounts := []ads.Account{
		{AccountID: "act_9000000000000001", Platform: catalog.MetaAds, AccountName: "Café Ñandú S.L.", Currency: "EUR", Timezone: "Europe/Madrid", Status: "ACTIVE"},
		{AccountID: "act_9000000000000002", Platform: catalog.MetaAds, AccountName: "Ωmega Реклама", Currency: "EUR", Timezone: "Europe/Athens", Status: "ACTIVE"},
	}
	if err := sink.Dataset("kind", "test"); err != nil {
		return err
	}
	for _, a := range accounts {
		if err := sink.Account(a); err != nil {
			return err
		}
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type ad struct{ account, campaign, adset, ad string }
	var all []ad
	for i, name := range unicodeCampaigns {
		a := accounts[i%2].AccountID
		x := ad{a, fmt.Sprintf("c%d", i), fmt.Sprintf("s%d", i), fmt.Sprintf("d%d", i)}
		all = append(all, x)
		if err := sink.Campaign(ads.Campaign{CampaignID: x.campaign, AccountID: a, Name: name, Objective: "OUTCOME_SALES", Status: "ACTIVE", StartDate: start}); err != nil {
			return err
		}
		if err := sink.AdSet(ads.AdSet{AdSetID: x.adset, CampaignID: x.campaign, AccountID: a, Name: "Público " + name}); err != nil {
			return err
		}
		if err := sink.Ad(ads.Ad{AdID: x.ad, AdSetID: x.adset, CampaignID: x.campaign, AccountID: a, Name: "Anuncio «" + name + "»"}); err != nil {
			return err
		}
	}
	countries := []string{"ES", "GR", "UA"}
	for day := range 30 {
		for i, x := range all {
			f := ads.Fact{Date: start.AddDate(0, 0, day), AccountID: x.account, CampaignID: x.campaign, AdSetID: x.adset, AdID: x.ad,
				Country: countries[(i+day)%3], Device: "mobile", PublisherPlatform: "facebook"}
			m := &f.Measures
			m[catalog.Spend], m[catalog.Impressions] = float64(1_000_000+37_000*i+11_000*day), float64(1000+7*i+3*day)
			m[catalog.Clicks], m[catalog.LinkClicks] = float64(20+i+day%5), float64(15+i)
			m[catalog.Conversions], m[catalog.ConversionValue] = float64((i+day)%4), float64(500_000*((i+day)%4))
			if err := sink.Fact(&f); err != nil {
				return err
			}
		}
	}
	return nil
}

// UnicodeCases filter, group and sort on non-ASCII names. Dates fit
// UnicodeData.
var UnicodeCases = []Case{
	{"contains, accented", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend","ctr"],"filters":[{"field":"campaign_name","operator":"CONTAINS","value":"été"}]}`},
	{"equals, other case", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend"],"filters":[{"field":"campaign_name","operator":"EQUALS","value":"école ÑANDÚ"}]}`},
	{"starts with, Greek", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["campaign_name","account_name"],"metrics":["clicks"],"filters":[{"field":"campaign_name","operator":"STARTS_WITH","value":"ΣΟΦ"}]}`},
	{"in, Cyrillic and diaeresis", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend","cpc"],"filters":[{"field":"campaign_name","operator":"IN","value":["журнал ВЕСНА","NAÏVE CAFÉ"]}]}`},
	{"not contains, sorted by name", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["ad_name","country"],"metrics":["impressions"],"filters":[{"field":"adset_name","operator":"NOT_CONTAINS","value":"ñ"}],"sort":[{"field":"ad_name"}]}`},
	{"account name filter, weekly", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["account_name","campaign_name"],"metrics":["spend","roas"],"filters":[{"field":"account_name","operator":"CONTAINS","value":"ωMEGA"}],"time_granularity":"weekly"}`},
}

// RunUnicode loads UnicodeData into the embedded warehouse (in memory) and,
// through load, into the source under test, and runs UnicodeCases on both.
func RunUnicode(t *testing.T, load func(t *testing.T, produce func(context.Context, ads.Sink) error) source.Source) {
	ctx := context.Background()
	want, err := duckdb.OpenMemory(ctx, UnicodeData)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { want.Close() })
	got := load(t, UnicodeData)
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
	runCases(t, want, got, accounts, map[string]string{"$ALL": ids(accounts, func(ads.Account) bool { return true })}, UnicodeNow, UnicodeCases)
}

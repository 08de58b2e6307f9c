package duckdb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// TestEveryBreakdownSetSumsToTheTotals: through the engine, every breakdown
// set a platform reports gives the same per-campaign totals as the delivery
// rows (spend, impressions, clicks, conversions), and the conversion_action
// rows of each account's default actions sum to its conversions (delivery
// without a campaign, dimension artifacts, is in delivery only). Fails when a
// query reads two sets at once (double counting) or a set lacks part of the
// delivery.
func TestEveryBreakdownSetSumsToTheTotals(t *testing.T) {
	src := openTestSource(t)
	all := []string{"spend", "impressions", "clicks", "conversions"}
	for _, platform := range catalog.AllPlatforms {
		accts := accountsWhere(t, src, func(a ads.Account) bool { return a.Platform == platform })
		if len(accts) > 10 {
			accts = accts[:10]
		}
		base := fmt.Sprintf(`"account_ids":%s,"date_range":{"start":"2026-01-01","end":"2026-02-28"}`, ids(accts))
		_, want := run(t, src, `{`+base+`,"dimensions":["account_id","campaign_id"],"metrics":`+jsonStrings(all)+`}`)
		totals := sumsBy(want, "campaign_id", all)
		if len(totals) == 0 {
			t.Fatalf("%s: no campaigns", platform)
		}
		for _, set := range catalog.PlatformSets(platform) {
			if set.Key == catalog.Delivery {
				continue
			}
			dims := append([]string{"account_id", "campaign_id"}, set.Dimensions...)
			ms := all
			if set.Metrics != nil {
				ms = []string{"conversions"}
			}
			q, got := run(t, src, `{`+base+`,"dimensions":`+jsonStrings(dims)+`,"metrics":`+jsonStrings(ms)+`}`)
			if reads := q.SetReads(); len(reads) != 1 || reads[0].Key != set.Key {
				t.Errorf("%s %s: reads sets %v", platform, set.Key, reads)
			}
			if set.Key == "conversion_action" {
				// Only the default actions' rows make up conversions.
				defaults := map[string][]string{}
				for _, a := range accts {
					defaults[a.AccountID] = strings.Split(a.ConversionActions, ", ")
				}
				acct, action := got.Column("account_id"), got.Column("conversion_action")
				var keep []int
				for i := range got.Len() {
					if slices.Contains(defaults[acct.Strings[i]], action.Strings[i]) {
						keep = append(keep, i)
					}
				}
				got = got.Select(keep)
			}
			sums := sumsBy(got, "campaign_id", ms)
			for camp, w := range totals {
				if camp == "" {
					continue // delivery the platform could not attribute to a campaign: in no breakdown set
				}
				for _, m := range ms {
					if g := sums[camp][m]; math.Abs(g-w[m]) > 0.005 {
						t.Errorf("%s %s: campaign %s %s sums to %.2f, delivery says %.2f", platform, set.Key, camp, m, g, w[m])
					}
				}
			}
		}
	}
}

// sumsBy sums each metric of tab per value of its column by.
func sumsBy(tab *fit.Table, by string, metrics []string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	key := tab.Column(by)
	for i := range tab.Len() {
		k := key.Strings[i]
		if out[k] == nil {
			out[k] = map[string]float64{}
		}
		for _, m := range metrics {
			if c := tab.Column(m); !c.IsNull(i) {
				out[k][m] += c.Numbers[i]
			}
		}
	}
	return out
}

func jsonStrings(s []string) string { return `["` + strings.Join(s, `","`) + `"]` }

// TestCoverageCountsDeliveryRows: an account's coverage counts its delivery
// rows only, the rows a query of any one set is sized by: the other sets
// split the same delivery again, and counting them made every query look
// bigger than it is (the size-first path's estimate, answer's factsIn).
func TestCoverageCountsDeliveryRows(t *testing.T) {
	src := openTestSource(t)
	accts := accountsWhere(t, src, func(ads.Account) bool { return true })
	var ids []string
	for _, a := range accts {
		ids = append(ids, a.AccountID)
	}
	cov, err := src.Coverage(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	var sets int
	for _, a := range accts {
		var delivery, others int
		if err := src.DB().QueryRow(`SELECT count(*) FILTER (WHERE breakdown = 'delivery'), count(*) FILTER (WHERE breakdown <> 'delivery')
			FROM facts WHERE account_id = ?`, a.AccountID).Scan(&delivery, &others); err != nil {
			t.Fatal(err)
		}
		sets += others
		if c := cov[a.AccountID]; delivery > 0 && c.Facts != delivery {
			t.Errorf("%s: coverage counts %d facts, the account has %d delivery rows (and %d of other sets)", a.AccountID, c.Facts, delivery, others)
		}
	}
	if sets == 0 {
		t.Fatal("no breakdown rows: the test proves nothing")
	}
}

// TestEachPlatformReadsItsOwnSet: one query over Meta, Google and TikTok
// accounts by device reads Meta's device_platform rows and the others'
// delivery rows (Meta stores delivery too, by country): every account's
// totals by device equal its totals, none counted twice; and a device query
// and a country query on Meta give the same totals.
func TestEachPlatformReadsItsOwnSet(t *testing.T) {
	src := openTestSource(t)
	var accts []ads.Account
	for _, p := range catalog.AllPlatforms {
		accts = append(accts, accountsWhere(t, src, func(a ads.Account) bool { return a.Platform == p })[:2]...)
	}
	base := fmt.Sprintf(`"account_ids":%s,"date_range":{"start":"2026-01-01","end":"2026-02-28"},"metrics":["spend","impressions","clicks"]`, ids(accts))
	all := []string{"spend", "impressions", "clicks"}
	_, total := run(t, src, `{`+base+`,"dimensions":["account_id"]}`)
	want := sumsBy(total, "account_id", all)
	for _, dims := range []string{`["account_id","device"]`, `["account_id","publisher_platform","device"]`, `["account_id","country"]`} {
		_, tab := run(t, src, `{`+base+`,"dimensions":`+dims+`}`)
		got := sumsBy(tab, "account_id", all)
		if len(got) != len(want) || len(want) < len(catalog.AllPlatforms) {
			t.Fatalf("%s: %d accounts, their totals %d", dims, len(got), len(want))
		}
		for id, ms := range want {
			for _, m := range all {
				if math.Abs(got[id][m]-ms[m]) > 1e-6*math.Max(1, ms[m]) {
					t.Errorf("%s: account %s %s sums to %v, its total is %v", dims, id, m, got[id][m], ms[m])
				}
			}
		}
	}
}

package fit

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchTable is shaped like a large adsmcp result: a daily time column, four
// dimensions (one of them the currency), spend in three currencies, three more
// additive metrics, two ratios over them (one of them money) and reach.
func benchTable(n int) *Table {
	r := rand.New(rand.NewPCG(1, 2))
	labels := func(prefix string, k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = fmt.Sprintf("%s %d", prefix, i)
		}
		return out
	}
	dates := make([]string, 730)
	for i := range dates {
		dates[i] = fmt.Sprintf("%04d-%02d-%02d", 2024+i/365, 1+i/31%12, 1+i%28)
	}
	campaigns, adsets, countries := labels("Campaign", 2000), labels("Ad set", 9000), labels("Country", 25)
	currencies := []string{"USD", "EUR", "ARS"}
	str := func(name string, role Role) *Column {
		return &Column{Name: name, Role: role, Strings: make([]string, n)}
	}
	num := func(name string) *Column { return &Column{Name: name, Role: RoleMetric, Numbers: make([]float64, n)} }
	date, campaign, adset, country, currency := str("date", RoleTime), str("campaign_name", RoleDimension),
		str("adset_name", RoleDimension), str("country", RoleDimension), str("currency", RoleDimension)
	spend, imps, clicks, conv, reach := num("spend"), num("impressions"), num("clicks"), num("conversions"), num("reach")
	spend.Money, spend.CurrencyColumn = true, "currency"
	reach.Aggregation = NonAdditive
	ctr, cpc := num("ctr"), num("cpc")
	ctr.Aggregation, ctr.Numerator, ctr.Denominator, ctr.Scale = Ratio, "clicks", "impressions", 100
	cpc.Aggregation, cpc.Numerator, cpc.Denominator, cpc.Scale = Ratio, "spend", "clicks", 1
	cpc.Money, cpc.CurrencyColumn = true, "currency"
	ctr.Null, cpc.Null = make([]bool, n), make([]bool, n)
	for i := range n {
		a := r.IntN(len(adsets))
		date.Strings[i] = dates[i*len(dates)/n]
		adset.Strings[i] = adsets[a]
		campaign.Strings[i] = campaigns[a/5]
		country.Strings[i] = countries[r.IntN(len(countries))]
		currency.Strings[i] = currencies[a%7%3]
		spend.Numbers[i] = float64(r.IntN(100000)) / 100
		imps.Numbers[i] = float64(r.IntN(50000))
		clicks.Numbers[i] = float64(r.IntN(500))
		conv.Numbers[i] = float64(r.IntN(20))
		reach.Numbers[i] = imps.Numbers[i] * 0.7
		if imps.Numbers[i] > 0 {
			ctr.Numbers[i] = clicks.Numbers[i] / imps.Numbers[i] * 100
		} else {
			ctr.Null[i] = true
		}
		if clicks.Numbers[i] > 0 {
			cpc.Numbers[i] = spend.Numbers[i] / clicks.Numbers[i]
		} else {
			cpc.Null[i] = true
		}
	}
	return &Table{Grain: Daily, Columns: []*Column{date, campaign, adset, country, currency,
		spend, imps, clicks, conv, ctr, cpc, reach}}
}

func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{5_000, 100_000, 1_000_000} {
		tab := benchTable(n)
		if err := tab.Validate(); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(tab, SummaryOptions{MainMetric: "spend", TopValues: 20, TopByMetric: 5})
			}
		})
	}
}

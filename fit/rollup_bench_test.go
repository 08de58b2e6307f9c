package fit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// rbTable is a daily table shaped like an ad query: rows ordered by date, then by
// (account, campaign); 200 dimension combinations × days up to a year, and more
// combinations beyond that (1M rows: 365 days × 2,740 campaigns). Three currencies,
// summed money, counts, two ratios over a hidden part and a non-additive column.
func rbTable(rows int) *Table {
	days := min(365, max(1, rows/200))
	combos := (rows + days - 1) / days
	accounts := 8
	date := make([]string, 0, rows)
	account := make([]string, 0, rows)
	currency := make([]string, 0, rows)
	campaign := make([]string, 0, rows)
	spend := make([]float64, 0, rows)
	impressions := make([]float64, 0, rows)
	clicks := make([]float64, 0, rows)
	ctr := make([]float64, 0, rows)
	cpc := make([]float64, 0, rows)
	cpcNull := make([]bool, 0, rows)
	reach := make([]float64, 0, rows)
	names := make([]string, combos)
	for c := range names {
		names[c] = fmt.Sprintf("Campaign %d — prospecting", c)
	}
	accountIDs := make([]string, accounts)
	for a := range accountIDs {
		accountIDs[a] = fmt.Sprintf("act_%d", 1000+a)
	}
	curs := []string{"USD", "EUR", "JPY"}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; len(date) < rows; d++ {
		label := start.AddDate(0, 0, d%days).Format(dayLayout)
		for c := 0; c < combos && len(date) < rows; c++ {
			x := float64((d*31 + c*17) % 1000)
			// Every value its own allocation, as when scanned from a database.
			date = append(date, strings.Clone(label))
			account = append(account, strings.Clone(accountIDs[c%accounts]))
			currency = append(currency, strings.Clone(curs[c%accounts%len(curs)]))
			campaign = append(campaign, strings.Clone(names[c]))
			spend = append(spend, x*0.25)
			impressions = append(impressions, x*40)
			clicks = append(clicks, x)
			ctr = append(ctr, 2.5)
			cpc = append(cpc, 0.25)
			cpcNull = append(cpcNull, x == 0)
			reach = append(reach, x*30)
		}
	}
	return &Table{Grain: Daily, RowsBeforeLimit: rows, Columns: []*Column{
		{Name: "date", Role: RoleTime, Strings: date},
		{Name: "account_id", Role: RoleDimension, Strings: account},
		{Name: "currency", Role: RoleDimension, Strings: currency},
		{Name: "campaign_name", Role: RoleDimension, Strings: campaign},
		{Name: "spend", Role: RoleMetric, Money: true, CurrencyColumn: "currency", Numbers: spend},
		{Name: "clicks", Role: RoleMetric, Numbers: clicks},
		{Name: "ctr", Role: RoleMetric, Aggregation: Ratio, Numerator: "clicks", Denominator: "impressions", Scale: 100, Numbers: ctr},
		{Name: "cpc", Role: RoleMetric, Aggregation: Ratio, Numerator: "spend", Denominator: "clicks", Scale: 1, Money: true, CurrencyColumn: "currency", Numbers: cpc, Null: cpcNull},
		{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: reach},
		{Name: "impressions", Role: RoleMetric, Hidden: true, Numbers: impressions},
	}}
}

var rbTables sync.Map // rows → *Table

func rbCached(rows int) *Table {
	if t, ok := rbTables.Load(rows); ok {
		return t.(*Table)
	}
	t := rbTable(rows)
	rbTables.Store(rows, t)
	return t
}

var rbSizes = []struct {
	name string
	rows int
}{{"5k", 5_000}, {"100k", 100_000}, {"1M", 1_000_000}}

// BenchmarkRollup rolls daily tables up to weekly and to total.
func BenchmarkRollup(b *testing.B) {
	for _, to := range []Grain{Weekly, Total} {
		for _, sz := range rbSizes {
			b.Run(fmt.Sprintf("%s/to=%s", sz.name, to), func(b *testing.B) {
				t := rbCached(sz.rows)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					out, dropped, err := Rollup(t, to)
					if err != nil || len(dropped) != 1 || out.Len() == 0 {
						b.Fatal(out.Len(), dropped, err)
					}
				}
			})
		}
	}
}

// BenchmarkRowCountAt counts the rows of the same roll-ups without building them.
func BenchmarkRowCountAt(b *testing.B) {
	for _, to := range []Grain{Weekly, Monthly, Total} {
		for _, sz := range rbSizes {
			b.Run(fmt.Sprintf("%s/to=%s", sz.name, to), func(b *testing.B) {
				t := rbCached(sz.rows)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if n, err := rowCountAt(t, to); err != nil || n == 0 {
						b.Fatal(n, err)
					}
				}
			})
		}
	}
}

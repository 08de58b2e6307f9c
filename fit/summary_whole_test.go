package fit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// wholeTable is a daily table of many campaigns in two currencies, with rows
// step 1 removes (no campaign) that carry spend and conversions.
func wholeTable(t *testing.T, start time.Time, days int, k float64) *Table {
	t.Helper()
	b := NewBuilder(Daily, Period(Daily), Dimension("campaign"), Dimension("currency").AsUnit(),
		SumMetric("spend").InCurrencyOf("currency"), SumMetric("conversions"),
		RatioMetric("cpa", "spend", "conversions", 1).InCurrencyOf("currency"))
	for d := range days {
		day := start.AddDate(0, 0, d)
		for c := range 300 {
			cur := []string{"USD", "EUR"}[c%2]
			spend, conv := k*float64(10+c+d), float64(1+(c+d)%3)
			b.Row(day, fmt.Sprintf("campaign %02d", c), cur, spend, conv, spend/conv)
		}
		b.Row(day, "", "USD", 7.5, 0.0, nil)
		b.Row(day, "", "EUR", 3.25, 1.0, 3.25)
	}
	tab, err := b.Table()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// wantWhole checks that a summary's sums and overall ratios are over every
// row of the tables (per currency): the rows step 1 removed included.
func wantWhole(t *testing.T, what string, s *Summary, sums map[string]float64) {
	t.Helper()
	seen := 0
	for _, m := range s.Metrics {
		want, ok := sums[m.Field+" "+m.Currency]
		if !ok {
			continue
		}
		got := m.Sum
		if m.Aggregation == "ratio" {
			got = m.Overall
		}
		if got == nil || math.Abs(*got-want) > 0.006 {
			t.Errorf("%s: %s %s is %v, everything asked is %.4f", what, m.Field, m.Currency, deref(got), want)
		}
		seen++
	}
	if seen != len(sums) {
		t.Errorf("%s: %d of %d figures found in %+v", what, seen, len(sums), s.Metrics)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// totalsByCurrency are the sums of spend and conversions and the overall cpa
// of tables, per currency, over every row.
func totalsByCurrency(tabs ...*Table) map[string]float64 {
	spend, conv := map[string]float64{}, map[string]float64{}
	for _, tab := range tabs {
		cur, s, c := tab.Column("currency"), tab.Column("spend"), tab.Column("conversions")
		for r := range tab.Len() {
			spend[cur.Strings[r]] += s.Numbers[r]
			conv[cur.Strings[r]] += c.Numbers[r]
		}
	}
	out := map[string]float64{}
	for k := range spend {
		out["spend "+k] = spend[k]
		out["cpa "+k] = spend[k] / conv[k]
	}
	return out
}

// A summary's sum and overall figures are the totals of everything asked,
// the rows step 1 removed (delivery not attributed to a campaign) included:
// the rows in hand, a table known by its aggregates, and a comparison.
func TestSummaryFiguresAreOverEverythingAsked(t *testing.T) {
	start := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	tab := wholeTable(t, start, 60, 1)
	end := start.AddDate(0, 0, 59)

	resp, err := Fit(context.Background(), tab, Options{Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindTooLarge {
		t.Fatalf("want a summary, got %s", resp.Kind)
	}
	wantWhole(t, "rows in hand", resp.TooLarge.Summary, totalsByCurrency(tab))

	l, coarse := largeOf(tab, 1500)
	resp, err = FitLarge(context.Background(), l, coarse, Options{Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindTooLarge {
		t.Fatalf("large: want a summary, got %s", resp.Kind)
	}
	wantWhole(t, "aggregates", resp.TooLarge.Summary, totalsByCurrency(tab))

	base := wholeTable(t, start.AddDate(0, 0, -60), 60, 0.8)
	resp, err = Fit(context.Background(), tab, Options{Budget: 2500, Start: start, End: end,
		Compare: &Comparison{Base: base, Start: start.AddDate(0, 0, -60), End: start.AddDate(0, 0, -1)}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindTooLarge {
		t.Fatalf("comparison: want a summary, got %s", resp.Kind)
	}
	want := totalsByCurrency(tab)
	for k, v := range totalsByCurrency(base) {
		if field, currency, _ := strings.Cut(k, " "); field == "spend" {
			want["spend_compare "+currency] = v
			want["spend_change "+currency] = want[k] - v
		}
	}
	wantWhole(t, "comparison", resp.TooLarge.Summary, want)
	// A ratio's change is the difference of the two windows' overall
	// ratios, each over everything asked.
	baseTotals := totalsByCurrency(base)
	for _, m := range resp.TooLarge.Summary.Metrics {
		if m.Field == "cpa_change" {
			w := want["cpa "+m.Currency] - baseTotals["cpa "+m.Currency]
			if m.Overall == nil || math.Abs(*m.Overall-w) > 0.0001 {
				t.Errorf("cpa_change %s: %v, want %.4f", m.Currency, deref(m.Overall), w)
			}
			delete(baseTotals, "cpa "+m.Currency)
		}
	}
	if _, ok := baseTotals["cpa USD"]; ok {
		t.Errorf("no cpa_change USD in %+v", resp.TooLarge.Summary.Metrics)
	}
}

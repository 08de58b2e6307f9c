package fit

import (
	"context"
	"strings"
	"testing"
)

func TestSortRows(t *testing.T) {
	cpa := rtNum(&Column{Name: "cpa", Role: RoleMetric, Aggregation: Ratio, Numerator: "spend", Denominator: "conv", Scale: 1}, 5, 0, 2, 2)
	cpa.Null = []bool{false, true, false, false}
	tab := &Table{Grain: Weekly, Columns: []*Column{
		rtTime("week", "2026-01-12", "2026-01-05", "2026-01-12", "2026-01-05"),
		rtDim("ad", "b", "a", "", "c"),
		rtSum("spend", 10, 0, 4, 4), rtSum("conv", 2, 0, 2, 2), cpa,
	}}
	got := SortRows(tab, []SortKey{{Column: "cpa"}})
	// cpa asc, empty last; ties by week, then ad.
	if s := strings.Join(got.Column("ad").Strings, ","); s != "c,,b,a" {
		t.Errorf("cpa asc: ads %q, want c,,b,a", s)
	}
	got = SortRows(tab, []SortKey{{Column: "date", Desc: true}})
	// A sort on the daily time column holds on the week it rolled up into;
	// within a week, an empty ad comes after the named ones.
	if s := strings.Join(got.Column("ad").Strings, ","); s != "b,,a,c" {
		t.Errorf("date desc: ads %q, want b,,a,c", s)
	}
	if got := SortRows(tab, nil); strings.Join(got.Column("ad").Strings, ",") != "a,c,b," {
		t.Errorf("default order: %q", got.Column("ad").Strings)
	}
	if strings.Join(tab.Column("ad").Strings, ",") != "b,a,,c" {
		t.Errorf("input modified: %q", tab.Column("ad").Strings)
	}
}

// A local roll-up keeps the requested order; a selection (metric filter) rolls
// up exactly the selected rows and says so.
func TestFitSelectionRollsUpSelectedRowsInOrder(t *testing.T) {
	var days, ads []string
	var spend []float64
	for d := 1; d <= 28; d++ {
		for _, ad := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			days = append(days, "2026-02-"+twoDigits(d))
			ads = append(ads, ad)
			spend = append(spend, float64(d%7+int(ad[0]-'a')))
		}
	}
	tab := &Table{Grain: Daily, Columns: []*Column{rtTime("date", days...), rtDim("ad", ads...), rtSum("spend", spend...)}}
	tab.RowsBeforeLimit = tab.Len()
	resp, err := Fit(context.Background(), tab, Options{Budget: 700, Selection: "spend > 3",
		Sort: []SortKey{{Column: "spend", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindData || resp.Meta.TimeGranularity.Returned == Daily {
		t.Fatalf("%s at %+v", resp.Kind, resp.Meta.TimeGranularity)
	}
	out := resp.Table.Column("spend").Numbers
	for i := 1; i < len(out); i++ {
		if out[i] > out[i-1] {
			t.Fatalf("not sorted by spend desc: %v", out)
		}
	}
	var sel, got float64
	for _, v := range spend {
		sel += v // the table in hand is already the selection
	}
	for _, v := range out {
		got += v
	}
	if got != sel {
		t.Errorf("coarse rows sum to %v, the selected rows to %v", got, sel)
	}
	var warned bool
	for _, w := range resp.Meta.Warnings {
		warned = warned || w.Type == "selection_at_requested_grain" && strings.Contains(w.Detail, "spend > 3")
	}
	if !warned {
		t.Errorf("no selection_at_requested_grain warning: %+v", resp.Meta.Warnings)
	}
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

func TestRemovedTotalsPerCurrencyIgnoreTheCurrencyColumn(t *testing.T) {
	spend := rtSum("spend", 1.25, 2, 3.5, 4)
	spend.Money, spend.CurrencyColumn = true, "currency"
	tab := &Table{Grain: Total, Columns: []*Column{
		rtDim("campaign", "x", "", "", "y"), rtDim("currency", "USD", "USD", "ARS", "ARS"), spend, rtSum("clicks", 1, 2, 3, 4),
	}}
	resp, err := Fit(context.Background(), tab, Options{Budget: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Table.Len() != 2 {
		t.Fatalf("%d rows kept, want 2: the currency column does not make a row attributed", resp.Table.Len())
	}
	vf := resp.Meta.Optimizations[0]
	b, _ := MarshalText(vf.RemovedTotals)
	if vf.Type != "validation_filter" || vf.RowsRemoved != 2 || string(b) != `[{"currency":"USD","rows":1,"spend":2,"clicks":2},{"currency":"ARS","rows":1,"spend":3.5,"clicks":3}]` {
		t.Errorf("%+v\n%s", vf, b)
	}
}

// An attribution window, like a currency, says how a row's numbers are
// counted, not what it breaks down: rows with no campaign are removed whatever
// window they are counted under, and what they carried is given per window,
// since conversions counted under different windows are never added up.
func TestRemovedTotalsPerAttributionWindow(t *testing.T) {
	spend := rtSum("spend", 1.25, 2, 3.5, 4)
	spend.Money, spend.Currency = true, "USD"
	tab := &Table{Grain: Total, Columns: []*Column{
		rtDim("campaign", "x", "", "", "y"), rtDim("attribution_window", "7d_click", "7d_click", "per_conversion_action", "7d_click").AsUnit(),
		spend, rtSum("conversions", 1, 2, 3, 4),
	}}
	resp, err := Fit(context.Background(), tab, Options{Budget: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Table.Len() != 2 {
		t.Fatalf("%d rows kept, want 2: the attribution_window column does not make a row attributed", resp.Table.Len())
	}
	vf := resp.Meta.Optimizations[0]
	b, _ := MarshalText(vf.RemovedTotals)
	want := `[{"currency":"USD","attribution_window":"7d_click","rows":1,"spend":2,"conversions":2},{"currency":"USD","attribution_window":"per_conversion_action","rows":1,"spend":3.5,"conversions":3}]`
	if vf.Type != "validation_filter" || vf.RowsRemoved != 2 || string(b) != want {
		t.Errorf("%+v\n got %s\nwant %s", vf, b, want)
	}
	if !strings.Contains(vf.Detail, "with no campaign:") {
		t.Errorf("detail %q judges more than the campaign", vf.Detail)
	}
}

// Without money, a currency column still splits what removed rows carried,
// and a second unit column (an attribution window) is never read as the
// currency.
func TestRemovedTotalsWithoutMoneyKeepEachUnit(t *testing.T) {
	tab := &Table{Grain: Total, Columns: []*Column{
		rtDim("campaign", "x", "", "", "y"),
		rtDim("attribution_window", "1d_click", "1d_click", "7d_click", "1d_click").AsUnit(),
		rtDim("currency", "USD", "USD", "ARS", "ARS").AsUnit(),
		rtSum("conversions", 1, 2, 3, 4),
	}}
	resp, err := Fit(context.Background(), tab, Options{Budget: 10000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := MarshalText(resp.Meta.Optimizations[0].RemovedTotals)
	want := `[{"attribution_window":"1d_click","currency":"USD","rows":1,"conversions":2},{"attribution_window":"7d_click","currency":"ARS","rows":1,"conversions":3}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

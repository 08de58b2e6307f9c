package fit

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuilderBuildsColumnsFromRows(t *testing.T) {
	type money float32                                  // any Go number, named types included
	day := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC) // a Wednesday
	tab, err := NewBuilder(Weekly,
		Period(Weekly),
		Dimension("currency").AsUnit(),
		SumMetric("revenue").InCurrencyOf("currency"),
		SumMetric("orders").AsHidden(),
		RatioMetric("avg_order", "revenue", "orders", 1),
		NonAdditiveMetric("visitors"),
	).
		Row(day, "EUR", 10.5, 2, nil, uint8(7)).
		Row("2026-03-09", "USD", money(4), int64(1), nil, nil).
		Table()
	if err != nil {
		t.Fatal(err)
	}
	if tab.Grain != Weekly || tab.Len() != 2 || tab.RowsBeforeLimit != 2 {
		t.Fatalf("grain %s, %d rows, %d before limit", tab.Grain, tab.Len(), tab.RowsBeforeLimit)
	}
	if got := tab.Column("week").Strings; !slices.Equal(got, []string{"2026-03-02", "2026-03-09"}) {
		t.Errorf("week labels %q: a time.Time is labelled with its ISO week's Monday", got)
	}
	if c := tab.Column("currency"); c.Role != RoleDimension || !c.Unit || !slices.Equal(c.Strings, []string{"EUR", "USD"}) {
		t.Errorf("currency column %+v", c)
	}
	rev := tab.Column("revenue")
	if !rev.Money || rev.CurrencyColumn != "currency" || !slices.Equal(rev.Numbers, []float64{10.5, 4}) || rev.Null != nil {
		t.Errorf("revenue column %+v", rev)
	}
	if c := tab.Column("orders"); !c.Hidden || !slices.Equal(c.Numbers, []float64{2, 1}) {
		t.Errorf("orders column %+v", c)
	}
	if c := tab.Column("avg_order"); c.Aggregation != Ratio || c.Numerator != "revenue" || c.Denominator != "orders" || !c.IsNull(0) || !c.IsNull(1) {
		t.Errorf("avg_order column %+v", c)
	}
	// A nil after numbers marks that row empty, and only that one.
	if c := tab.Column("visitors"); c.Aggregation != NonAdditive || c.IsNull(0) || !c.IsNull(1) || c.Numbers[0] != 7 {
		t.Errorf("visitors column %+v", c)
	}
}

func TestBuilderReportsTheFirstBadRow(t *testing.T) {
	cases := []struct {
		name string
		rows [][]any
		want string
	}{
		{"too few values", [][]any{{"a"}}, "row 0 has 1 values for 2 columns"},
		{"dimension not a string", [][]any{{"a", 1}, {3, 1}}, `row 1, column "product": want a string, got int`},
		{"metric not a number", [][]any{{"a", "1"}}, `row 0, column "units": want a number or nil, got string`},
		{"not a finite number", [][]any{{"a", 1.0}, {"b", 0.0}, {"c", math.NaN()}}, `column "units" row 2 is NaN`},
		{"later rows ignored", [][]any{{"a", "x"}, {1}}, `row 0, column "units"`},
	}
	for _, c := range cases {
		b := NewBuilder(Total, Dimension("product"), SumMetric("units"))
		for _, r := range c.rows {
			b.Row(r...)
		}
		if _, err := b.Table(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// A time column must be the grain's: none at Total, one otherwise.
	if _, err := NewBuilder(Daily, Dimension("product")).Row("a").Table(); err == nil {
		t.Error("a daily table without a time column was accepted")
	}
	if _, err := NewBuilder(Daily, Period(Daily)).Row(42).Table(); err == nil || !strings.Contains(err.Error(), "want a time.Time or a string label, got int") {
		t.Errorf("a number as a date: %v", err)
	}
}

func TestBuilderTableIsIndependent(t *testing.T) {
	units := SumMetric("units")
	b := NewBuilder(Total, Dimension("product"), units)
	first, err := b.Row("a", 1).Table()
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Row("b", nil).Table()
	if err != nil {
		t.Fatal(err)
	}
	if first.Len() != 1 || first.Column("units").Null != nil || second.Len() != 2 || !second.Column("units").IsNull(1) {
		t.Errorf("first %d rows %+v, second %d rows %+v", first.Len(), first.Column("units"), second.Len(), second.Column("units"))
	}
	// The constructors' columns are schemas: the builder fills copies.
	if units.Numbers != nil {
		t.Errorf("the column given to NewBuilder was filled: %v", units.Numbers)
	}
	other, err := NewBuilder(Total, Dimension("product"), units).Row("z", 9).Table()
	if err != nil || other.Len() != 1 || other.Column("units").Numbers[0] != 9 {
		t.Errorf("a second builder from the same schema: %v, %+v", err, other)
	}
}

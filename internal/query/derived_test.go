package query

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

func TestDerivedSortAndFilters(t *testing.T) {
	a := compareArgs("2026-03-01", "2026-03-14", mode("previous_period"))
	a.Metrics = []string{"spend", "clicks"}
	a.Sort = []SortArg{{Field: "spend_change"}, {Field: "Clicks Change %", Direction: "asc"}, {Field: "cost_prev"}}
	a.Filters = []FilterArg{{Field: "spend_change_pct", Operator: ">", Value: 10}, {Field: "clicks delta", Operator: "BETWEEN", Value: []any{-5, 5}}}
	q := mustNormalize(t, a)
	wantSort := []SortKey{{"spend_change", true}, {"clicks_change_pct", false}, {"spend_compare", true}}
	if !reflect.DeepEqual(q.Sort, wantSort) {
		t.Errorf("sort %+v, want %+v", q.Sort, wantSort)
	}
	wantFilters := []Filter{{Field: "spend_change_pct", Operator: GreaterThan, Values: []any{10.0}, Metric: true},
		{Field: "clicks_change", Operator: Between, Values: []any{-5.0, 5.0}, Metric: true}}
	if !reflect.DeepEqual(q.Filters, wantFilters) {
		t.Errorf("filters %+v, want %+v", q.Filters, wantFilters)
	}
	renamed := changesOf(q, ChangeFieldRenamed)
	if len(renamed) != 3 {
		t.Errorf("renames %+v", renamed)
	}

	// Without compare the derived columns do not exist: the fix says add compare.
	a.Compare = nil
	e := mustFail(t, a)
	for _, f := range []string{"sort[0].field", "sort[1].field", "filters[0].field", "filters[1].field"} {
		if p := problemAt(t, e, f); !strings.Contains(p.Fix, "add compare") {
			t.Errorf("%s: %+v", f, p)
		}
	}
	// Only for queried metrics.
	a = compareArgs("2026-03-01", "2026-03-14", mode("previous_period"))
	a.Sort = []SortArg{{Field: "clicks_change"}}
	a.Filters = []FilterArg{{Field: "ctr_compare", Operator: ">", Value: 1}}
	e = mustFail(t, a)
	if p := problemAt(t, e, "sort[0].field"); p.Fix != "add clicks to metrics" {
		t.Errorf("%+v", p)
	}
	if p := problemAt(t, e, "filters[0].field"); p.Fix != "add ctr to metrics" {
		t.Errorf("%+v", p)
	}
	// A derived column is a number: text operators are rejected.
	a = compareArgs("2026-03-01", "2026-03-14", mode("previous_period"))
	a.Filters = []FilterArg{{Field: "spend_change", Operator: "CONTAINS", Value: "1"}}
	if p := problemAt(t, mustFail(t, a), "filters[0].operator"); !slices.Equal(p.Valid, opNames(NumberOperators)) {
		t.Errorf("%+v", p)
	}
	// The result's columns, listed when a sort key is not one of them.
	a = compareArgs("2026-03-01", "2026-03-14", mode("previous_period"))
	a.Sort = []SortArg{{Field: "campaign_name"}}
	want := []string{"spend", "spend_compare", "spend_change", "spend_change_pct"}
	if p := problemAt(t, mustFail(t, a), "sort[0].field"); !slices.Equal(p.Valid, want) {
		t.Errorf("valid %v, want %v", p.Valid, want)
	}
}

// Every metric's derived columns resolve to themselves, split back into the
// metric, and no dimension has any.
func TestDerivedNames(t *testing.T) {
	for _, m := range catalog.Names(catalog.Metric) {
		for _, col := range DerivedColumns(m) {
			got, metric, ok := resolveDerived(col)
			if !ok || got != col || metric != m {
				t.Errorf("resolveDerived(%q) = %q, %q, %v", col, got, metric, ok)
			}
			sm, suffix, ok := SplitDerived(col)
			if !ok || sm != m || sm+suffix != col {
				t.Errorf("SplitDerived(%q) = %q, %q, %v", col, sm, suffix, ok)
			}
			if _, _, ok := catalog.Resolve(col); ok {
				t.Errorf("%q is also a catalog field", col)
			}
		}
	}
	for _, d := range catalog.Names(catalog.Dimension) {
		if _, _, ok := resolveDerived(d + SuffixChange); ok {
			t.Errorf("dimension %s has a change column", d)
		}
		if _, _, ok := SplitDerived(d + SuffixCompare); ok {
			t.Errorf("dimension %s splits as derived", d)
		}
	}
	for in, want := range map[string]string{
		"Spend Change %": "spend_change_pct", "spend_pct_change": "spend_change_pct", "cost percent change": "spend_change_pct",
		"spendChange": "spend_change", "revenue_delta": "conversion_value_change", "CPC diff": "cpc_change",
		"spend_previous": "spend_compare", "clicks comparison": "clicks_compare",
	} {
		if got, _, ok := resolveDerived(in); !ok || got != want {
			t.Errorf("resolveDerived(%q) = %q, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"change", "_change_pct", "spend", "spend_changes", "spendchange_x"} {
		if got, _, ok := resolveDerived(in); ok {
			t.Errorf("resolveDerived(%q) = %q", in, got)
		}
	}
}

// The value and the change of a money metric are money, ranked and
// thresholded within each currency; the change in percent is not.
func TestDerivedMoneyPerCurrency(t *testing.T) {
	a := Args{AccountIDs: mixedCurr, Metrics: []string{"spend"}, DateRange: &DateRange{Start: "2026-03-01", End: "2026-03-14"},
		Compare: mode("previous_period")}
	for _, tt := range []struct {
		field string
		money bool
	}{{"spend_change", true}, {"spend_compare", true}, {"spend_change_pct", false}} {
		s := a
		s.Sort, s.Limit = []SortArg{{Field: tt.field}}, intp(5)
		q := mustNormalize(t, s)
		perCurrency := len(q.Sort) == 2 && q.Sort[0].Field == "currency"
		if perCurrency != tt.money || q.LimitPerCurrency != tt.money || (len(changesOfWarnings(q, WarningSortPerCurrency)) == 1) != tt.money {
			t.Errorf("sort %s: sort %+v, limit per currency %v, warnings %+v", tt.field, q.Sort, q.LimitPerCurrency, q.Warnings)
		}
		f := a
		f.Filters = []FilterArg{{Field: tt.field, Operator: ">", Value: 100}}
		q = mustNormalize(t, f)
		if (len(changesOfWarnings(q, WarningThresholdPerCurrency)) == 1) != tt.money {
			t.Errorf("filter %s: warnings %+v", tt.field, q.Warnings)
		}
	}
}

func changesOfWarnings(q *Query, typ string) []Change {
	var out []Change
	for _, w := range q.Warnings {
		if w.Type == typ {
			out = append(out, w)
		}
	}
	return out
}

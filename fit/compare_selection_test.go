package fit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A comparison's selection (a metric filter, a sort for a top N) that reads
// a metric left out at the grain returned (metric_not_compared: here reach,
// which a comparison period of several days cannot have from daily rows) is
// not applied to a column that is not there: a filter would keep no row and
// the answer would read "no campaign lost reach", a top N would take rows in
// no stated order. The filter passes every row, the sort key and its limit
// are dropped, and a warning names the selection and why.
func TestFitCompareSelectionOnAMetricLeftOut(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	build := func(start, end time.Time) *Table {
		b := NewBuilder(Daily, Period(Daily), Dimension("campaign"), SumMetric("spend").InCurrency("USD"), NonAdditiveMetric("reach"))
		for c := range 4 {
			for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
				b.Row(d.Format(time.DateOnly), fmt.Sprintf("campaign %d", c), 10.0, 100.0)
			}
		}
		tab, err := b.Table()
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	cs, ce, bs, be := day("2026-03-10"), day("2026-03-14"), day("2026-03-01"), day("2026-03-07")
	for _, sel := range []struct {
		name  string
		keep  func(*Table, int) bool
		limit int
		sort  []SortKey
	}{
		{name: "filter", keep: func(t *Table, r int) bool {
			c := t.Column("reach_change")
			return c == nil || !c.IsNull(r) && c.Numbers[r] <= 0 // Keep passes a filter on a missing column
		}},
		{name: "top N", limit: 2, sort: []SortKey{{Column: "reach_change", Desc: true}}},
	} {
		resp, err := Fit(context.Background(), build(cs, ce), Options{Budget: 30000, Start: cs, End: ce, Sort: sel.sort,
			Compare: &Comparison{Base: build(bs, be), Start: bs, End: be, Mode: "custom",
				Keep: sel.keep, Limit: sel.limit, Selection: "reach_change", Reads: []string{"reach_change"}}})
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		var notApplied *Warning
		for i, w := range resp.Meta.Warnings {
			types = append(types, w.Type)
			if w.Type == "selection_not_applied" {
				notApplied = &resp.Meta.Warnings[i]
			}
		}
		if !slices.Contains(types, "metric_not_compared") {
			t.Fatalf("%s: reach compared across a merged period? warnings %v", sel.name, types)
		}
		if notApplied == nil || !slices.Contains(notApplied.Fields, "reach_change") {
			t.Fatalf("%s: warnings %v: no selection_not_applied naming reach_change", sel.name, types)
		}
		if n := resp.Table.Len(); n != 4*5 {
			t.Errorf("%s: %d rows, want every compared row (20)", sel.name, n)
		}
		for _, o := range resp.Meta.Optimizations {
			if o.Type == "comparison_selection" && !strings.Contains(o.Detail, "except what reads reach_change") {
				t.Errorf("%s: a selection that was not applied is reported as applied: %s", sel.name, o.Detail)
			}
		}
	}
}

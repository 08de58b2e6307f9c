package sourcetest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
)

// runSized checks a source.Sizer against the rows the same source returns:
// its row counts at every grain, the rows step 1
// removes, and a summary from its aggregates equal to the summary of the
// rows themselves — for every case without a limit (the large path never
// takes one).
func runSized(t *testing.T, got source.Source, accounts []ads.Account, lists map[string]string, now time.Time, cases []Case) {
	sz, ok := got.(source.Sizer)
	if !ok {
		return
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run("sized/"+c.Name, func(t *testing.T) {
			raw, q := caseQuery(t, c, accounts, lists, now)
			if q.Limit > 0 {
				t.Skip("a limit: the large path never sizes one")
			}
			tab, err := got.Query(ctx, clone(q))
			if err != nil {
				t.Fatal(err)
			}
			grains := fit.Grains[slices.Index(fit.Grains, q.Grain):]
			counts, err := sz.RowCounts(ctx, clone(q), grains)
			if err != nil {
				t.Fatalf("RowCounts: %v", err)
			}
			for i, g := range grains {
				if counts[i] < 0 && i > 0 {
					continue // not askable at this grain
				}
				qg := clone(q)
				qg.Grain = g
				at, err := got.Query(ctx, qg)
				if err != nil {
					t.Fatal(err)
				}
				if counts[i] != at.Len() {
					t.Errorf("%s at %s: RowCounts %d, the query returns %d rows", raw, g, counts[i], at.Len())
				}
			}
			var kept, removed []int
			judged := fit.JudgedDimensions(tab.Columns)
			for r := range tab.Len() {
				empty := len(judged) > 0
				for _, col := range judged {
					empty = empty && col.Strings[r] == ""
				}
				if empty {
					removed = append(removed, r)
				} else {
					kept = append(kept, r)
				}
			}
			rem, err := sz.Removed(ctx, clone(q))
			if err != nil {
				t.Fatalf("Removed: %v", err)
			}
			want := tab.Select(removed)
			want.RowsBeforeLimit, rem.RowsBeforeLimit = want.Len(), rem.Len()
			if a, b := Dump(t, want), Dump(t, rem); a != b {
				t.Errorf("%s: removed rows differ\n--- the query's\n%s\n--- Removed\n%s", raw, a, b)
			}
			agg, err := sz.Aggregates(ctx, clone(q))
			if err != nil {
				t.Fatalf("Aggregates: %v", err)
			}
			for _, opt := range []fit.SummaryOptions{{MainMetric: "spend", TopValues: 20, TopByMetric: 10}, {MainMetric: "clicks", TopValues: 3, TopByMetric: 2}} {
				want := fit.Summarize(tab.Select(kept), opt)
				gotSum := fit.SummarizeAggregates(&fit.Table{Columns: tab.Columns, Grain: tab.Grain}, agg, opt)
				a, _ := json.Marshal(want)
				b, _ := json.Marshal(gotSum)
				if string(a) != string(b) {
					t.Errorf("%s %+v: summary from aggregates differs\n--- from the rows\n%s\n--- from aggregates\n%s", raw, opt, a, b)
				}
			}
		})
	}
}

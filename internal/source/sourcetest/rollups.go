package sourcetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source"
)

// runRollups checks the source against itself across grains: every
// quarterly case without a limit or a non-additive metric answers what its
// monthly rows roll up to (months nest in quarters), so a quarter is the sum
// of its three months in every warehouse, not only the same number as
// DuckDB's.
func runRollups(t *testing.T, got source.Source, accounts []ads.Account, lists map[string]string, now time.Time, cases []Case) {
	ctx := context.Background()
	for _, c := range cases {
		_, q := caseQuery(t, c, accounts, lists, now)
		if q.Grain != fit.Quarterly || q.Limit > 0 || slices.ContainsFunc(q.Metrics, nonAdditive) {
			continue
		}
		t.Run(c.Name+", from months", func(t *testing.T) {
			quarterly, err := got.Query(ctx, clone(q))
			if err != nil {
				t.Fatal(err)
			}
			mq := clone(q)
			mq.Grain = fit.Monthly
			mq.Sort = nil
			monthly, err := got.Query(ctx, mq)
			if err != nil {
				t.Fatal(err)
			}
			rolled, dropped, err := fit.Rollup(monthly, fit.Quarterly)
			if err != nil || len(dropped) > 0 {
				t.Fatalf("roll up the months: %v (dropped %v)", err, dropped)
			}
			var order []fit.SortKey
			for _, k := range q.Sort {
				order = append(order, fit.SortKey{Column: k.Field, Desc: k.Desc})
			}
			if d := diffRows(fit.SortRows(rolled, order), quarterly); d != "" {
				t.Errorf("quarterly rows are not the months rolled up: %s", d)
			}
		})
	}
}

func nonAdditive(m string) bool { return catalog.MustLookup(m).Aggregation == catalog.NonAdditive }

// diffRows compares two tables cell by cell, sums within a relative 1e-9
// (the warehouse adds days, the roll-up adds months).
func diffRows(want, got *fit.Table) string {
	if want.Len() != got.Len() || len(want.Columns) != len(got.Columns) {
		return fmt.Sprintf("%d rows × %d columns, want %d × %d", got.Len(), len(got.Columns), want.Len(), len(want.Columns))
	}
	for i, w := range want.Columns {
		g := got.Columns[i]
		if w.Name != g.Name || w.Role != g.Role || w.Hidden != g.Hidden {
			return fmt.Sprintf("column %d is %s, want %s", i, g.Name, w.Name)
		}
		for r := range want.Len() {
			if w.Role != fit.RoleMetric {
				if w.Strings[r] != g.Strings[r] {
					return fmt.Sprintf("row %d, %s: %q, want %q", r, w.Name, g.Strings[r], w.Strings[r])
				}
				continue
			}
			a, b := w.Numbers[r], g.Numbers[r]
			if w.IsNull(r) != g.IsNull(r) || !w.IsNull(r) && math.Abs(a-b) > 1e-9*max(1, math.Abs(a)) {
				return fmt.Sprintf("row %d, %s: %v (null %v), want %v (null %v)", r, w.Name, b, g.IsNull(r), a, w.IsNull(r))
			}
		}
	}
	return ""
}

package fit

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// largeOf describes t as a source that cannot send it would: its schema,
// size, removed rows and aggregates, and the coarser table it would send —
// the finest grain whose rows do not alone exceed the budget, else the
// coarsest.
func largeOf(t *Table, budget int) (*Large, *Table) {
	kept, removed, _ := dropEmptyDimensionRows(t)
	l := &Large{Schema: t.Select(nil), Rows: t.Len(), Removed: t.Select(removed),
		Aggregates: func(context.Context) (*Aggregates, error) { return aggregatesOf(kept), nil }}
	var coarse *Table
	for _, g := range coarser(grainOf(t)) {
		rolled, _, err := Rollup(t, g)
		if err != nil {
			panic(err)
		}
		coarse = SortRows(rolled, nil) // in the source's order
		if rolled.Len() <= budget {
			break
		}
	}
	return l, coarse
}

// removedTotals adds up what every validation_filter of a _meta says the
// answer leaves out, per currency and metric.
func removedTotals(m Meta) map[string]string {
	sums := map[string]float64{}
	for _, o := range m.Optimizations {
		for _, tot := range o.RemovedTotals {
			for i, name := range tot.Metrics {
				sums[tot.Currency+" "+name] += tot.Values[i]
			}
		}
	}
	out := map[string]string{}
	for k, v := range sums {
		out[k] = fmt.Sprintf("%.2f", v)
	}
	return out
}

func warningTypes(m Meta) []string {
	var out []string
	for _, w := range m.Warnings {
		out = append(out, w.Type+fmt.Sprint(w.Keys))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FitLarge answers as Fit does on the table itself: the same rows at the same
// grain, or the same summary of the requested grain — with what was removed
// and the all-zero warnings the same — though it never holds the table.
func TestFitLargeAnswersAsFit(t *testing.T) {
	counter := NewO200k()
	kinds := map[Kind]int{}
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 123))
		tab, start, end := randomDailyTable(r)
		budget := 300 + r.IntN(6000)
		kept, _, _ := dropEmptyDimensionRows(tab)
		if kept.Len() <= budget {
			continue
		}
		opt := Options{Budget: budget, Counter: counter, Start: start, End: end,
			Partitions: Partitions{Column: "dim0"}, Suggest: func(n Narrowing) any { return n },
			// The source asked again at a grain the table in hand cannot roll up to.
			Requery: func(_ context.Context, g Grain) (*Table, error) {
				rolled, _, err := Rollup(tab, g)
				return SortRows(rolled, nil), err
			}}
		want, err := Fit(context.Background(), tab, opt)
		if err != nil {
			t.Fatal(err)
		}
		l, coarse := largeOf(tab, budget)
		got, err := FitLarge(context.Background(), l, coarse, opt)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		kinds[got.Kind]++
		if got.Kind != want.Kind {
			t.Fatalf("seed %d: %s, Fit answers %s", seed, got.Kind, want.Kind)
		}
		n := 0
		for _, b := range got.Blocks {
			n += counter.Exact(b)
		}
		if n > budget {
			t.Errorf("seed %d: %d tokens over the budget %d", seed, n, budget)
		}
		gm, wm := got.Meta, want.Meta
		if gm.OriginalRows != wm.OriginalRows || gm.ReturnedRows != wm.ReturnedRows || gm.TimeGranularity.Returned != wm.TimeGranularity.Returned {
			t.Errorf("seed %d: rows %d → %d at %s, Fit %d → %d at %s", seed, gm.OriginalRows, gm.ReturnedRows, gm.TimeGranularity.Returned,
				wm.OriginalRows, wm.ReturnedRows, wm.TimeGranularity.Returned)
		}
		if a, b := fmt.Sprint(removedTotals(gm)), fmt.Sprint(removedTotals(wm)); a != b {
			t.Errorf("seed %d: removed totals %s, Fit %s", seed, a, b)
		}
		if a, b := fmt.Sprint(warningTypes(gm)), fmt.Sprint(warningTypes(wm)); a != b {
			t.Errorf("seed %d: warnings %s, Fit %s", seed, a, b)
		}
		switch got.Kind {
		case KindData:
			if got.Blocks[1] != want.Blocks[1] {
				t.Errorf("seed %d: the rows differ", seed)
			}
		case KindTooLarge:
			// The same summary, though each may list fewer top values to fit.
			gs, ws := sameShed(*got.TooLarge.Summary, *want.TooLarge.Summary)
			a, _ := json.Marshal(gs)
			b, _ := json.Marshal(ws)
			if string(a) != string(b) {
				t.Errorf("seed %d: summary\n got %s\nwant %s", seed, a, b)
			}
			for _, s := range got.TooLarge.RequeryInstructions.Suggestions {
				if s.ExpectedRows == 0 || s.TokenEstimate > budget {
					t.Errorf("seed %d: suggestion %+v", seed, s)
				}
			}
		}
	}
	if kinds[KindData] == 0 || kinds[KindTooLarge] == 0 {
		t.Fatalf("the cases prove little: %v", kinds)
	}
	t.Logf("answers: %v", kinds)
}

// A table that might fit at its own grain is not answered without its rows.
func TestFitLargeRefusesASmallTable(t *testing.T) {
	tab, start, end := randomDailyTable(rand.New(rand.NewPCG(1, 2)))
	l, coarse := largeOf(tab, tab.Len())
	_, err := FitLarge(context.Background(), l, coarse, Options{Budget: tab.Len() + 1, Start: start, End: end})
	if err != ErrNotLarge {
		t.Fatalf("err = %v, want ErrNotLarge", err)
	}
}

// sameShed is two summaries listing as many top values as the shorter of
// them, without their size estimates.
func sameShed(a, b Summary) (Summary, Summary) {
	a.TokenEstimate, b.TokenEstimate = 0, 0
	a.Dimensions, b.Dimensions = slices.Clone(a.Dimensions), slices.Clone(b.Dimensions)
	for i := range min(len(a.Dimensions), len(b.Dimensions)) {
		x, y := &a.Dimensions[i], &b.Dimensions[i]
		k := min(len(x.TopValues), len(y.TopValues))
		x.TopValues, y.TopValues = x.TopValues[:k], y.TopValues[:k]
		x.TopByMetric, y.TopByMetric = samePerCurrency(x.TopByMetric, y.TopByMetric)
	}
	return a, b
}

func samePerCurrency(a, b []ValueShare) ([]ValueShare, []ValueShare) {
	count := func(vs []ValueShare) map[string]int {
		n := map[string]int{}
		for _, v := range vs {
			n[v.Currency]++
		}
		return n
	}
	na, nb := count(a), count(b)
	keep := func(vs []ValueShare, other map[string]int) []ValueShare {
		var out []ValueShare
		seen := map[string]int{}
		for _, v := range vs {
			if seen[v.Currency] < other[v.Currency] {
				out = append(out, v)
			}
			seen[v.Currency]++
		}
		return out
	}
	return keep(a, nb), keep(b, na)
}

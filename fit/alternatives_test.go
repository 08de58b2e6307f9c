package fit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sourceAnswer is what a source answers for a narrowing of tab at tab's grain,
// computed independently of the pipeline: IN or NOT_IN compared case aside (an
// empty value is in no list), then, when Dimensions is set, the rows grouped by
// period and the dimensions kept — sums added, ratios recomputed from them.
func sourceAnswer(t *testing.T, tab *Table, n Narrowing) *Table {
	t.Helper()
	if n.Grain != grainOf(tab) {
		t.Fatalf("narrowing at %s of a %s table", n.Grain, grainOf(tab))
	}
	var idx []int
	in := map[string]bool{}
	for _, v := range n.Values {
		in[strings.ToLower(v)] = true
	}
	for r := range tab.Len() {
		if n.Field == "" || in[strings.ToLower(tab.Column(n.Field).Strings[r])] != n.Exclude {
			idx = append(idx, r)
		}
	}
	sel := tab.Select(idx)
	if n.Dimensions == nil {
		return sel
	}
	out := &Table{Grain: sel.Grain}
	var keys []*Column
	for _, c := range sel.Columns {
		if c.Role == RoleDimension && !c.Hidden && !slices.Contains(n.Dimensions, c.Name) {
			continue
		}
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = nil, nil, nil
		out.Columns = append(out.Columns, &nc)
		if c.Role != RoleMetric {
			keys = append(keys, c)
		}
	}
	group := map[string]int{}
	for r := range sel.Len() {
		var k []string
		for _, c := range keys {
			k = append(k, c.Strings[r])
		}
		g, ok := group[strings.Join(k, "\x00")]
		if !ok {
			g = len(group)
			group[strings.Join(k, "\x00")] = g
			for _, c := range out.Columns {
				if c.Role == RoleMetric {
					c.Numbers = append(c.Numbers, 0)
				} else {
					c.Strings = append(c.Strings, sel.Column(c.Name).Strings[r])
				}
			}
		}
		for _, c := range out.Columns {
			if c.Role == RoleMetric && c.Aggregation == Sum && !sel.Column(c.Name).IsNull(r) {
				c.Numbers[g] += sel.Column(c.Name).Numbers[r]
			}
		}
	}
	for _, c := range out.Columns {
		if c.Role == RoleMetric && c.Aggregation == Ratio {
			num, den := out.Column(c.Numerator), out.Column(c.Denominator)
			c.Null = make([]bool, len(c.Numbers))
			for g := range c.Numbers {
				if den.Numbers[g] == 0 {
					c.Null[g] = true
				} else {
					c.Numbers[g] = num.Numbers[g] / den.Numbers[g] * c.Scale
				}
			}
		}
	}
	return out
}

// rerun answers a suggestion's narrowing as the pipeline will when the model
// runs it, and checks the answer is what was promised: data at the requested
// grain, expected_rows rows, token_estimate within −10%/+25% of the exact
// count, within the budget.
func rerun(t *testing.T, what string, tab *Table, s Suggestion, opt Options) *Response {
	t.Helper()
	n := s.Query.(Narrowing)
	opt.Query = n
	got, err := Fit(context.Background(), sourceAnswer(t, tab, n), opt)
	if err != nil {
		t.Fatalf("%s, %q: %v", what, s.Description, err)
	}
	exact := 0
	for _, b := range got.Blocks {
		exact += opt.Counter.Exact(b)
	}
	switch {
	case got.Kind != KindData || got.Meta.TimeGranularity.Returned != grainOf(tab):
		t.Errorf("%s, %q: answered %s at %v", what, s.Description, got.Kind, got.Meta.TimeGranularity)
	case got.Meta.ReturnedRows != s.ExpectedRows:
		t.Errorf("%s, %q: %d rows, expected_rows %d", what, s.Description, got.Meta.ReturnedRows, s.ExpectedRows)
	case exact > opt.Budget:
		t.Errorf("%s, %q: %d tokens for a budget of %d", what, s.Description, exact, opt.Budget)
	}
	if d := float64(s.TokenEstimate-exact) / float64(exact); d < -0.1 || d > 0.25 {
		t.Errorf("%s, %q: token_estimate %d, the answer is %d tokens", what, s.Description, s.TokenEstimate, exact)
	}
	return got
}

// removedByCurrency is what an answer's validation_filter says its removed rows
// carried of metric, per currency.
func removedByCurrency(m Meta, metric string) map[string]float64 {
	out := map[string]float64{}
	for _, o := range m.Optimizations {
		for _, tot := range o.RemovedTotals {
			if i := slices.Index(tot.Metrics, metric); i >= 0 {
				out[tot.Currency] += tot.Values[i]
			}
		}
	}
	return out
}

// TestAlternativesRerunExactly: over random tables and budgets, a coarsened
// answer offers the requested grain on the top values whenever such an answer
// fits; each alternative, and its fold, re-runs at the rows and tokens promised;
// the two together count every amount of the table, per currency; and the
// coarsened answer's data is the same as without them.
func TestAlternativesRerunExactly(t *testing.T) {
	counter := NewO200k()
	offered, folded := 0, 0
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 16))
		tab, start, end := randomDailyTable(r)
		var full strings.Builder
		if err := WriteCSV(&full, tab); err != nil {
			t.Fatal(err)
		}
		// Between a tenth and all of what the daily rows take: often coarsened.
		budget := max(1500, counter.Estimate(full.String())*(10+r.IntN(90))/100)
		opt := Options{Budget: budget, Counter: counter, Start: start, End: end,
			Partitions: Partitions{Column: "dim0"}, Suggest: func(n Narrowing) any { return n }}
		resp, err := Fit(context.Background(), tab, opt)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		coarsened := resp.Kind == KindData && resp.Meta.TimeGranularity.Returned != Daily
		if !coarsened {
			if len(resp.Meta.Alternatives) > 0 {
				t.Errorf("seed %d: alternatives on a %s answer at %s grain", seed, resp.Kind, resp.Meta.TimeGranularity.Returned)
			}
			continue
		}
		plain := opt
		plain.Suggest = nil
		without, err := Fit(context.Background(), tab, plain)
		if err != nil {
			t.Fatal(err)
		}
		if without.Blocks[1] != resp.Blocks[1] {
			t.Errorf("seed %d: the alternatives changed the answer's data", seed)
		}
		what := fmt.Sprintf("seed %d, budget %d", seed, budget)
		for _, a := range resp.Meta.Alternatives {
			offered++
			top := rerun(t, what, tab, a.Suggestion, opt)
			if a.Rest == nil {
				continue
			}
			folded++
			rest := rerun(t, what, tab, *a.Rest, opt)
			for _, metric := range []string{"spend", "clicks"} {
				want := sumsByCurrency(tab, metric)
				got := sumsByCurrency(top.Table, metric)
				for c, v := range sumsByCurrency(rest.Table, metric) {
					got[c] += v
				}
				for c, v := range removedByCurrency(rest.Meta, metric) {
					got[c] += v
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: %s per currency %v in the top and the fold, %v in the table", what, metric, got, want)
				}
			}
		}
	}
	t.Logf("%d alternatives, %d with a fold", offered, folded)
	if offered == 0 || folded == 0 {
		t.Errorf("the random cases never offered an alternative (%d) or a fold (%d)", offered, folded)
	}
}

// A coarsened answer whose top values fit at the requested grain says how to
// get them, with their share of the money; one that fits as asked says
// nothing of the kind, and neither does one after a limit cut the rows.
func TestAlternativesOnlyWhenCoarsened(t *testing.T) {
	tab := wideTable(30, 40) // 1,200 daily rows, 40 campaigns
	opt := Options{Budget: 8000, Suggest: func(n Narrowing) any { return n }}
	resp, err := Fit(context.Background(), tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Meta.TimeGranularity.Returned == Daily || len(resp.Meta.Alternatives) != 1 {
		t.Fatalf("at %s grain, %d alternatives", resp.Meta.TimeGranularity.Returned, len(resp.Meta.Alternatives))
	}
	a := resp.Meta.Alternatives[0]
	n := a.Query.(Narrowing)
	if n.Grain != Daily || n.Field != "campaign_name" || n.Exclude || len(n.Values) == 0 || len(n.Values) >= 40 {
		t.Errorf("alternative %+v", n)
	}
	if !strings.Contains(a.Description, "daily as asked, for the top") || !strings.Contains(a.Description, "of the total") {
		t.Errorf("description %q", a.Description)
	}
	if a.Rest == nil {
		t.Fatal("no fold")
	}
	rn := a.Rest.Query.(Narrowing)
	if !rn.Exclude || !slices.Equal(rn.Values, n.Values) || rn.Dimensions == nil || len(rn.Dimensions) != 0 || a.Rest.ExpectedRows != 30 {
		t.Errorf("fold %+v, %d rows (one per day)", rn, a.Rest.ExpectedRows)
	}
	if !strings.Contains(a.Rest.Description, fmt.Sprintf("folding the other %d campaign_name", 40-len(n.Values))) {
		t.Errorf("fold description %q", a.Rest.Description)
	}
	if !strings.Contains(resp.Blocks[0], `"alternatives":[{"description":`) {
		t.Errorf("_meta has no alternatives: %.400s", resp.Blocks[0])
	}

	fits, err := Fit(context.Background(), tab, Options{Budget: 60000, Suggest: opt.Suggest})
	if err != nil {
		t.Fatal(err)
	}
	if fits.Meta.TimeGranularity.Returned != Daily || fits.Meta.Alternatives != nil || strings.Contains(fits.Blocks[0], "alternatives") {
		t.Errorf("an answer as asked offers alternatives: %.300s", fits.Blocks[0])
	}

	limited := wideTable(30, 40)
	limited.RowsBeforeLimit = 5000
	cut, err := Fit(context.Background(), limited, opt)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Meta.TimeGranularity.Returned == Daily || cut.Meta.Alternatives != nil {
		t.Errorf("after a limit: at %s grain, alternatives %+v", cut.Meta.TimeGranularity.Returned, cut.Meta.Alternatives)
	}
}

// The alternatives are shed before anything else: an answer with room for
// its coarsened data and its _meta, query echo included, but not for them is
// the answer without them, nothing else shortened.
func TestAlternativesShedFirst(t *testing.T) {
	tab := wideTable(30, 40)
	counter := NewO200k()
	opt := Options{Budget: 8000, Counter: counter, Query: "every campaign, daily, March", Suggest: func(n Narrowing) any { return n }}
	with, err := Fit(context.Background(), tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Meta.Alternatives) == 0 {
		t.Fatal("no alternatives to shed")
	}
	plain := opt
	plain.Suggest = nil
	without, err := Fit(context.Background(), tab, plain)
	if err != nil {
		t.Fatal(err)
	}
	// Just the room for the answer without them (the estimate is exact near
	// the budget): with them it would not fit.
	tight := opt
	tight.Budget = counter.Exact(without.Blocks[0]) + counter.Exact(without.Blocks[1]) + 3
	shed, err := Fit(context.Background(), tab, tight)
	if err != nil {
		t.Fatal(err)
	}
	if shed.Meta.Alternatives != nil || shed.Blocks[1] != without.Blocks[1] {
		t.Errorf("%d alternatives kept; data changed: %v", len(shed.Meta.Alternatives), shed.Blocks[1] != without.Blocks[1])
	}
	if shed.Meta.Query == nil {
		t.Errorf("the query echo was shed, not the alternatives: %.400s", shed.Blocks[0])
	}
	if n := counter.Exact(shed.Blocks[0]) + counter.Exact(shed.Blocks[1]); n > tight.Budget {
		t.Errorf("%d tokens for a budget of %d", n, tight.Budget)
	}
}

package fit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// randomTable builds a daily table: up to three dimensions of varying width (with
// a few all-empty rows), a currency column, money spend, clicks, impressions and a
// ctr ratio over hidden-or-visible parts. Values are multiples of 0.25 so float sums
// are exact in any order.
func randomDailyTable(r *rand.Rand) (*Table, time.Time, time.Time) {
	start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(60))
	days := 7 + r.IntN(90)
	end := start.AddDate(0, 0, days-1)
	ndims := r.IntN(3)
	widths := []int{3 + r.IntN(200), 2 + r.IntN(5), 2 + r.IntN(30)}
	t := &Table{Grain: Daily}
	tc := &Column{Name: "date", Role: RoleTime}
	t.Columns = append(t.Columns, tc)
	var dims []*Column
	for i := range ndims {
		c := &Column{Name: fmt.Sprintf("dim%d", i), Role: RoleDimension}
		dims = append(dims, c)
		t.Columns = append(t.Columns, c)
	}
	cur := &Column{Name: "currency", Role: RoleDimension}
	t.Columns = append(t.Columns, cur)
	spend := &Column{Name: "spend", Role: RoleMetric, Aggregation: Sum, Money: true, CurrencyColumn: "currency"}
	clicks := &Column{Name: "clicks", Role: RoleMetric, Aggregation: Sum}
	impr := &Column{Name: "impressions", Role: RoleMetric, Aggregation: Sum, Hidden: r.IntN(2) == 0}
	ctr := &Column{Name: "ctr", Role: RoleMetric, Aggregation: Ratio, Numerator: "clicks", Denominator: "impressions", Scale: 100}
	t.Columns = append(t.Columns, spend, clicks, impr, ctr)
	currencies := []string{"USD", "EUR", "ARS"}[:1+r.IntN(3)]
	density := 0.2 + r.Float64()*0.8
	for d := range days {
		day := start.AddDate(0, 0, d).Format(time.DateOnly)
		for k := range widths[0] {
			if r.Float64() > density {
				continue
			}
			tc.Strings = append(tc.Strings, day)
			empty := r.IntN(50) == 0
			for i, c := range dims {
				v := fmt.Sprintf("Campaña «%d» \"%d\"", k%widths[i], i)
				if empty {
					v = ""
				}
				c.Strings = append(c.Strings, v)
			}
			cur.Strings = append(cur.Strings, currencies[k%len(currencies)])
			im := float64(r.IntN(5000))
			cl := float64(r.IntN(int(im)/10 + 1))
			spend.Numbers = append(spend.Numbers, float64(r.IntN(400000))/4)
			clicks.Numbers = append(clicks.Numbers, cl)
			impr.Numbers = append(impr.Numbers, im)
			if im == 0 {
				ctr.Numbers = append(ctr.Numbers, 0)
				ctr.Null = append(ctr.Null, true)
			} else {
				ctr.Numbers = append(ctr.Numbers, cl/im*100)
				ctr.Null = append(ctr.Null, false)
			}
		}
	}
	if len(ctr.Null) == 0 {
		ctr.Null = nil
	}
	return t, start, end
}

func sumsByCurrency(t *Table, metric string) map[string]float64 {
	out := map[string]float64{}
	m, c := t.Column(metric), t.Column("currency")
	for i := range t.Len() {
		if !m.IsNull(i) {
			out[c.Strings[i]] += m.Numbers[i]
		}
	}
	return out
}

// TestFitProperties: over random tables and budgets, every response fits by exact
// o200k count, rows are accounted for, totals are identical at every grain, ratios
// are recomputed from their parts, and money is never summed across currencies.
func TestFitProperties(t *testing.T) {
	counter := NewO200k()
	n := 60
	if testing.Short() {
		n = 15
	}
	kinds := map[Kind]int{}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		tab, start, end := randomDailyTable(r)
		budget := 1000 + r.IntN(20000)
		// A third of the cases also limit bytes and lines, as clients that cut
		// tool output by size do.
		maxBytes, maxLines := 0, 0
		if seed%3 == 1 {
			maxBytes, maxLines = 2000+r.IntN(40000), 40+r.IntN(600)
		}
		resp, err := Fit(context.Background(), tab, Options{Budget: budget, Counter: counter, Start: start, End: end,
			MaxBytes: maxBytes, MaxLines: maxLines,
			Partitions: Partitions{Column: "dim0"}, Suggest: func(n Narrowing) any { return n }})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		kinds[resp.Kind]++
		total := 0
		for _, b := range resp.Blocks {
			total += counter.Exact(b)
		}
		if total > budget {
			t.Errorf("seed %d: response is %d o200k tokens, budget %d", seed, total, budget)
		}
		if e := MeasureText(resp.Blocks); maxBytes > 0 && (e.Bytes > maxBytes || e.Lines > maxLines) {
			t.Errorf("seed %d: response is %d bytes and %d lines, limits %d and %d", seed, e.Bytes, e.Lines, maxBytes, maxLines)
		}
		if changed := resp.Kind == KindTooLarge || resp.Meta.TimeGranularity.Returned != Daily; changed != (resp.Meta.BindingLimit != "") {
			t.Errorf("seed %d: binding_limit %q on a %s answer at %s grain", seed, resp.Meta.BindingLimit, resp.Kind, resp.Meta.TimeGranularity.Returned)
		}
		filtered, removedRows, _ := dropEmptyDimensionRows(tab)
		removed := len(removedRows)
		m := resp.Meta
		if m.OriginalRows != tab.Len() {
			t.Errorf("seed %d: original_rows %d, table has %d", seed, m.OriginalRows, tab.Len())
		}
		accounted := m.OriginalRows
		for _, o := range m.Optimizations {
			if o.Grain == "" {
				accounted -= o.RowsRemoved
			}
			if o.Type == "granularity_change" && o.RowsBefore != accounted {
				t.Errorf("seed %d: roll-up starts from %d rows, %d remain after filtering", seed, o.RowsBefore, accounted)
			}
			if o.Type == "granularity_change" {
				accounted = o.RowsAfter
			}
		}
		if resp.Kind == KindTooLarge {
			if resp.TooLarge.Summary.TotalRows != filtered.Len() || removed != tab.Len()-filtered.Len() {
				t.Errorf("seed %d: summary covers %d rows, %d after filtering", seed, resp.TooLarge.Summary.TotalRows, filtered.Len())
			}
			for _, s := range resp.TooLarge.RequeryInstructions.Suggestions {
				if s.TokenEstimate > budget || s.ExpectedRows <= 0 {
					t.Errorf("seed %d: suggestion %q: %d rows, %d tokens, budget %d", seed, s.Description, s.ExpectedRows, s.TokenEstimate, budget)
				}
			}
			var body map[string]any
			if err := json.Unmarshal([]byte(resp.Blocks[0]), &body); err != nil {
				t.Errorf("seed %d: summary is not JSON: %v", seed, err)
			}
			continue
		}
		if accounted != m.ReturnedRows || m.ReturnedRows != resp.Table.Len() {
			t.Errorf("seed %d: rows not accounted for: %d after optimizations, %d returned", seed, accounted, m.ReturnedRows)
		}
		for _, metric := range []string{"spend", "clicks", "impressions"} {
			want, got := sumsByCurrency(filtered, metric), sumsByCurrency(resp.Table, metric)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("seed %d: %s per currency %v at %s, %v in the data", seed, metric, got, m.TimeGranularity.Returned, want)
			}
		}
		rt := resp.Table
		c, cl, im := rt.Column("ctr"), rt.Column("clicks"), rt.Column("impressions")
		for i := range rt.Len() {
			if im.Numbers[i] == 0 {
				if !c.IsNull(i) {
					t.Errorf("seed %d: ctr over zero impressions = %v", seed, c.Numbers[i])
				}
				continue
			}
			if want := cl.Numbers[i] / im.Numbers[i] * 100; math.Abs(c.Numbers[i]-want) > 1e-9 {
				t.Errorf("seed %d: ctr %v, parts give %v", seed, c.Numbers[i], want)
			}
		}
		if !strings.HasPrefix(resp.Blocks[0], `{"_meta":{`) {
			t.Errorf("seed %d: first block is not _meta", seed)
		}
	}
	t.Logf("response kinds: %v", kinds)
	if kinds[KindData] == 0 || kinds[KindTooLarge] == 0 {
		t.Errorf("the random cases never produced one of the kinds: %v", kinds)
	}
}

// A grain without a way to get a non-additive metric reports it unavailable.
func TestNonAdditiveWithoutRequeryIsReportedUnavailable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tab, start, end := randomDailyTable(r)
	reach := &Column{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: make([]float64, tab.Len())}
	tab.Columns = append(tab.Columns, reach)
	var buf strings.Builder
	if err := WriteCSV(&buf, tab); err != nil {
		t.Fatal(err)
	}
	budget := NewO200k().Estimate(buf.String()) / 3
	resp, err := Fit(context.Background(), tab, Options{Budget: max(budget, 1500), Start: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindData || resp.Table.Column("reach") != nil {
		t.Fatalf("the table was meant to need coarsening: got %s with reach %v", resp.Kind, resp.Table != nil && resp.Table.Column("reach") != nil)
	}
	found := false
	for _, w := range resp.Meta.Warnings {
		found = found || w.Type == "metric_unavailable_at_grain" && strings.Contains(w.Detail, "reach")
	}
	if !found {
		t.Errorf("reach dropped without metric_unavailable_at_grain: %+v", resp.Meta.Warnings)
	}
}

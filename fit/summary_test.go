package fit

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// summaryTable spans two currencies; clicks, impressions and conversion_value are
// hidden parts of the ratios, and the mean of ctr (6.8) differs from the recomputed
// overall (20 / 1660 × 100 = 1.2048).
func summaryTable() *Table {
	null := []bool{false, false, false, true, false, false}
	return &Table{
		Grain: Daily,
		Columns: []*Column{
			{Name: "date", Role: RoleTime, Strings: []string{"2026-01-01", "2026-01-01", "2026-01-02", "2026-01-02", "2026-01-03", "2026-01-03"}},
			{Name: "campaign", Role: RoleDimension, Strings: []string{"A", "B", "A", "C", "B", ""}},
			{Name: "currency", Role: RoleDimension, Strings: []string{"USD", "USD", "EUR", "EUR", "USD", "USD"}},
			{Name: "spend", Role: RoleMetric, Money: true, CurrencyColumn: "currency", Numbers: []float64{100, 50, 30, 70, 25.6, 0}},
			{Name: "conversions", Role: RoleMetric, Numbers: []float64{1, 0, 0.5, 2, 0, 0}, Null: []bool{false, true, false, false, true, false}},
			{Name: "clicks", Role: RoleMetric, Hidden: true, Numbers: []float64{10, 3, 5, 0, 2, 0}},
			{Name: "impressions", Role: RoleMetric, Hidden: true, Numbers: []float64{1000, 10, 500, 0, 100, 50}},
			{Name: "conversion_value", Role: RoleMetric, Hidden: true, Money: true, CurrencyColumn: "currency", Numbers: []float64{200, 0, 60, 0, 51.2, 0}},
			{Name: "ctr", Role: RoleMetric, Aggregation: Ratio, Numerator: "clicks", Denominator: "impressions", Scale: 100,
				Numbers: []float64{1, 30, 1, 0, 2, 0}, Null: null},
			{Name: "cpc", Role: RoleMetric, Aggregation: Ratio, Numerator: "spend", Denominator: "clicks", Money: true, CurrencyColumn: "currency",
				Numbers: []float64{10, 50.0 / 3, 6, 0, 12.8, 0}, Null: []bool{false, false, false, true, false, true}},
			{Name: "roas", Role: RoleMetric, Aggregation: Ratio, Numerator: "conversion_value", Denominator: "spend",
				Numbers: []float64{2, 0, 2, 0, 2, 0}, Null: []bool{false, false, false, false, false, true}},
			{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{800, 9, 450, 0, 90, 40}, Null: null},
		},
	}
}

func TestSummarizeJSON(t *testing.T) {
	tab := summaryTable()
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	s := Summarize(tab, SummaryOptions{MainMetric: "spend", TopValues: 20, TopByMetric: 5})
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"total_rows":6,"time_granularity":"daily","token_estimate":0,"token_budget":0,"dimensions":[` +
		`{"field":"date","unique_count":3,"top_values":["2026-01-01","2026-01-02","2026-01-03"],"first":"2026-01-01","last":"2026-01-03","top_by_spend":[` +
		`{"value":"2026-01-02","spend":100,"share":1,"currency":"EUR"},` +
		`{"value":"2026-01-01","spend":150,"share":0.8542,"currency":"USD"},` +
		`{"value":"2026-01-03","spend":25.6,"share":0.1458,"currency":"USD"}]},` +
		`{"field":"campaign","unique_count":4,"top_values":["A","B","","C"],"top_by_spend":[` +
		`{"value":"C","spend":70,"share":0.7,"currency":"EUR"},` +
		`{"value":"A","spend":30,"share":0.3,"currency":"EUR"},` +
		`{"value":"A","spend":100,"share":0.5695,"currency":"USD"},` +
		`{"value":"B","spend":75.6,"share":0.4305,"currency":"USD"},` +
		`{"value":"","spend":0,"share":0,"currency":"USD"}]},` +
		`{"field":"currency","unique_count":2,"top_values":["USD","EUR"],"top_by_spend":[` +
		`{"value":"EUR","spend":100,"share":1,"currency":"EUR"},` +
		`{"value":"USD","spend":175.6,"share":1,"currency":"USD"}]}],` +
		`"metrics":[` +
		`{"field":"spend","aggregation":"sum","currency":"EUR","min":30,"max":70,"avg":50,"sum":100},` +
		`{"field":"spend","aggregation":"sum","currency":"USD","min":0,"max":100,"avg":43.9,"sum":175.6},` +
		`{"field":"conversions","aggregation":"sum","min":0,"max":2,"avg":0.875,"sum":3.5,"empty_values":2},` +
		`{"field":"ctr","aggregation":"ratio","min":0,"max":30,"overall":1.2048,"empty_values":1},` +
		`{"field":"cpc","aggregation":"ratio","currency":"EUR","min":6,"max":6,"overall":20,"empty_values":1},` +
		`{"field":"cpc","aggregation":"ratio","currency":"USD","min":10,"max":16.6667,"overall":11.7067,"empty_values":1},` +
		`{"field":"roas","aggregation":"ratio","currency":"EUR","min":0,"max":2,"overall":0.6},` +
		`{"field":"roas","aggregation":"ratio","currency":"USD","min":0,"max":2,"overall":1.4305,"empty_values":1},` +
		`{"field":"reach","aggregation":"non_additive","min":9,"max":800,"avg":277.8,"empty_values":1}]}`
	if string(got) != want {
		t.Errorf("summary JSON:\n got %s\nwant %s", got, want)
	}
	// Money is never summed across currencies: 100 + 175.6 must appear nowhere.
	if strings.Contains(string(got), "275.6") {
		t.Errorf("cross-currency spend total in %s", got)
	}
}

func metricsNamed(s *Summary, name string) []MetricSummary {
	var out []MetricSummary
	for _, m := range s.Metrics {
		if m.Field == name {
			out = append(out, m)
		}
	}
	return out
}

func TestSummarizeMetricSemantics(t *testing.T) {
	s := Summarize(summaryTable(), SummaryOptions{TopValues: 20, TopByMetric: 5})

	for _, m := range s.Metrics {
		if m.Field == "clicks" || m.Field == "impressions" || m.Field == "conversion_value" {
			t.Errorf("hidden column %s listed", m.Field)
		}
	}

	spend := metricsNamed(s, "spend")
	if len(spend) != 2 || spend[0].Currency != "EUR" || spend[1].Currency != "USD" {
		t.Fatalf("spend summaries %+v, want one per currency, EUR then USD", spend)
	}
	if *spend[0].Sum != 100 || *spend[1].Sum != 175.6 {
		t.Errorf("spend sums %v %v, want 100 and 175.6", *spend[0].Sum, *spend[1].Sum)
	}

	ctr := metricsNamed(s, "ctr")
	if len(ctr) != 1 || ctr[0].Overall == nil {
		t.Fatalf("ctr summaries %+v", ctr)
	}
	mean := (1.0 + 30 + 1 + 2 + 0) / 5
	if want := round(20.0/1660*100, 4); *ctr[0].Overall != want || *ctr[0].Overall == round(mean, 4) {
		t.Errorf("ctr overall %v, want Σclicks/Σimpressions×100 = %v (not the mean %v)", *ctr[0].Overall, want, mean)
	}
	if ctr[0].Sum != nil || ctr[0].Avg != nil {
		t.Errorf("ratio has sum %v / avg %v", ctr[0].Sum, ctr[0].Avg)
	}
	if ctr[0].EmptyValues != 1 {
		t.Errorf("ctr empty values %d, want 1", ctr[0].EmptyValues)
	}

	reach := metricsNamed(s, "reach")
	if len(reach) != 1 || reach[0].Sum != nil || reach[0].Overall != nil || reach[0].Aggregation != "non_additive" {
		t.Errorf("non-additive summary %+v, want no sum and no overall", reach)
	}

	conv := metricsNamed(s, "conversions")
	if len(conv) != 1 || conv[0].EmptyValues != 2 || *conv[0].Sum != 3.5 || *conv[0].Avg != 0.875 || conv[0].Currency != "" {
		t.Errorf("conversions %+v", conv)
	}

	// Empty MainMetric: the first visible Sum metric, spend.
	if d := s.Dimensions[1]; d.MainMetric != "spend" || len(d.TopByMetric) != 5 {
		t.Errorf("default main metric: %+v", d)
	}
}

func TestSummarizeTopValuesAndTies(t *testing.T) {
	tab := &Table{Grain: Total, Columns: []*Column{
		{Name: "k", Role: RoleDimension, Strings: []string{"b", "a", "c", "b", "a", "d", "c", "e"}},
		{Name: "spend", Role: RoleMetric, Money: true, Currency: "JPY", Numbers: []float64{5, 5, 1, 0, 0, 7.4, 9.6, 0.2}},
		{Name: "clicks", Role: RoleMetric, Numbers: []float64{1, 1, 1, 1, 1, 1, 1, 1}},
	}}
	s := Summarize(tab, SummaryOptions{MainMetric: "spend", TopValues: 3, TopByMetric: 4})
	d := s.Dimensions[0]
	if d.UniqueCount != 5 {
		t.Errorf("unique count %d, want 5", d.UniqueCount)
	}
	// a, b and c appear twice (ties by value), then d and e once.
	if !slices.Equal(d.TopValues, []string{"a", "b", "c"}) {
		t.Errorf("top values %q", d.TopValues)
	}
	// Totals: a 5, b 5, c 10.6, d 7.4, e 0.2; a and b tie. JPY has no minor unit.
	want := []ValueShare{{"c", 11, 0.3759, ""}, {"d", 7, 0.2624, ""}, {"a", 5, 0.1773, ""}, {"b", 5, 0.1773, ""}}
	if !slices.Equal(d.TopByMetric, want) {
		t.Errorf("top by spend %+v, want %+v", d.TopByMetric, want)
	}
	m := metricsNamed(s, "spend")
	if len(m) != 1 || m[0].Currency != "JPY" || *m[0].Sum != 28 || *m[0].Max != 10 || *m[0].Avg != 4 {
		t.Errorf("JPY spend %+v", m)
	}

	// A main metric that is not in the table falls back to the first visible Sum.
	if s := Summarize(tab, SummaryOptions{MainMetric: "cost", TopValues: 1, TopByMetric: 1}); s.Dimensions[0].MainMetric != "spend" {
		t.Errorf("fallback main metric %q", s.Dimensions[0].MainMetric)
	}
	// The time column is a dimension with its range; no Sum metric: no top_by key.
	noSum := &Table{Grain: Weekly, Columns: []*Column{
		{Name: "week", Role: RoleTime, Strings: []string{"2026-01-12", "2026-01-05", "2026-01-12"}},
		{Name: "ctr", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{1, 2, 3}},
	}}
	b, _ := json.Marshal(Summarize(noSum, SummaryOptions{MainMetric: "spend", TopValues: 20, TopByMetric: 5}).Dimensions)
	if want := `[{"field":"week","unique_count":2,"top_values":["2026-01-12","2026-01-05"],"first":"2026-01-05","last":"2026-01-12"}]`; string(b) != want {
		t.Errorf("no main metric:\n got %s\nwant %s", b, want)
	}
}

func TestSummarizeEmptyTable(t *testing.T) {
	tab := summaryTable()
	for _, c := range tab.Columns {
		c.Strings, c.Numbers, c.Null = c.Strings[:0], c.Numbers[:0], nil
	}
	s := Summarize(tab, SummaryOptions{MainMetric: "spend", TopValues: 20, TopByMetric: 5})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if s.TotalRows != 0 || len(s.Dimensions) != 3 || len(s.Metrics) != 6 || s.Dimensions[0].UniqueCount != 0 {
		t.Errorf("empty table summary %s", b)
	}
	if !strings.Contains(string(b), `{"field":"spend","aggregation":"sum"}`) || !strings.Contains(string(b), `{"field":"campaign","unique_count":0,"top_values":[]}`) {
		t.Errorf("empty table summary %s", b)
	}
}

func TestSummaryTrim(t *testing.T) {
	s := Summarize(summaryTable(), SummaryOptions{MainMetric: "spend", TopValues: 20, TopByMetric: 5})
	before, _ := json.Marshal(s)
	tr := s.trim(1, 1)
	if after, _ := json.Marshal(s); string(after) != string(before) {
		t.Error("trim changed the original summary")
	}
	d := tr.Dimensions[1]
	want := []ValueShare{{"C", 70, 0.7, "EUR"}, {"A", 100, 0.5695, "USD"}}
	if !slices.Equal(d.TopValues, []string{"A"}) || !slices.Equal(d.TopByMetric, want) {
		t.Errorf("trimmed campaign %+v", d)
	}
	if got := s.trim(-1, -1); !slices.EqualFunc(got.Dimensions, s.Dimensions, func(a, b DimensionSummary) bool {
		return slices.Equal(a.TopValues, b.TopValues) && slices.Equal(a.TopByMetric, b.TopByMetric)
	}) {
		t.Error("trim(-1, -1) changed the lists")
	}
}

func TestValueShareJSON(t *testing.T) {
	b, _ := json.Marshal(ValueShare{Value: "x", Amount: 1.5, Share: 0.25})
	if want := `{"value":"x","amount":1.5,"share":0.25}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	b, _ = json.Marshal(DimensionSummary{Field: "f", MainMetric: "value", TopByMetric: []ValueShare{{Value: "<x>", Amount: 2, Share: 1, Currency: "EUR"}}})
	if want := `{"field":"f","unique_count":0,"top_values":[],"top_by_value":[{"value":"\u003cx\u003e","amount":2,"share":1,"currency":"EUR"}]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// randomTable has dimensions over small alphabets (with ""), spend in one to three
// currencies with some nulls, and clicks.
func randomTable(r *rand.Rand, n int) *Table {
	curs := []string{"USD", "EUR", "JPY", "KWD"}[:1+r.IntN(4)]
	dim := func(name string, card int) *Column {
		c := &Column{Name: name, Role: RoleDimension, Strings: make([]string, n)}
		for i := range c.Strings {
			if k := r.IntN(card + 1); k > 0 {
				c.Strings[i] = fmt.Sprintf("%s%d", name, k)
			}
		}
		return c
	}
	cur := &Column{Name: "currency", Role: RoleDimension, Strings: make([]string, n)}
	spend := &Column{Name: "spend", Role: RoleMetric, Money: true, CurrencyColumn: "currency", Numbers: make([]float64, n), Null: make([]bool, n)}
	clicks := &Column{Name: "clicks", Role: RoleMetric, Numbers: make([]float64, n)}
	for i := range n {
		cur.Strings[i] = curs[r.IntN(len(curs))]
		spend.Numbers[i] = math.Round(r.ExpFloat64()*1e5) / 100
		spend.Null[i] = r.IntN(20) == 0
		clicks.Numbers[i] = float64(r.IntN(100))
	}
	return &Table{Grain: Total, Columns: []*Column{dim("a", 1+r.IntN(3)), dim("b", 1+r.IntN(40)), dim("c", 1+r.IntN(400)), cur, spend, clicks}}
}

func TestSummarizeProperties(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		tab := randomTable(r, r.IntN(3000))
		opt := SummaryOptions{MainMetric: "spend", TopValues: r.IntN(25), TopByMetric: r.IntN(8)}
		s := Summarize(tab, opt)
		spend, cur := tab.Column("spend"), tab.Column("currency")

		// Brute force: per-currency spend totals.
		total := map[string]float64{}
		for i, v := range spend.Numbers {
			if !spend.Null[i] {
				total[cur.Strings[i]] += v
			}
		}
		ms := metricsNamed(s, "spend")
		if len(ms) != len(total) {
			t.Fatalf("seed %d: %d spend summaries for %d currencies", seed, len(ms), len(total))
		}
		for _, m := range ms {
			want, ok := total[m.Currency]
			if !ok || m.Sum == nil || math.Abs(*m.Sum-want) > math.Pow10(-currencyDecimals(m.Currency))/2+1e-6 {
				t.Errorf("seed %d: %s spend sum %v, want %v", seed, m.Currency, m.Sum, want)
			}
		}

		for ci, d := range s.Dimensions {
			col := tab.Columns[ci]
			count := map[string]int{}
			amount := map[[2]string]float64{}
			for i, v := range col.Strings {
				count[v]++
				if !spend.Null[i] {
					amount[[2]string{cur.Strings[i], v}] += spend.Numbers[i]
				}
			}
			if d.UniqueCount != len(count) {
				t.Errorf("seed %d %s: unique %d, want %d", seed, d.Field, d.UniqueCount, len(count))
			}
			if len(d.TopValues) != min(opt.TopValues, len(count)) {
				t.Errorf("seed %d %s: %d top values, want %d", seed, d.Field, len(d.TopValues), min(opt.TopValues, len(count)))
			}
			// The listed values are the first of the full ranking.
			var all []string
			for v := range count {
				all = append(all, v)
			}
			slices.SortFunc(all, func(a, b string) int {
				if count[a] != count[b] {
					return count[b] - count[a]
				}
				return strings.Compare(a, b)
			})
			if !slices.Equal(d.TopValues, all[:len(d.TopValues)]) {
				t.Errorf("seed %d %s: top values %q, want %q", seed, d.Field, d.TopValues, all[:len(d.TopValues)])
			}

			shares := map[string]float64{}
			listed := map[string]int{}
			multi := len(total) > 1
			for j, vs := range d.TopByMetric {
				c := vs.Currency
				if multi == (c == "") {
					t.Errorf("seed %d %s: currency %q on a value with %d currencies", seed, d.Field, c, len(total))
				}
				if !multi {
					for c = range total {
					}
				}
				shares[c] += vs.Share
				listed[c]++
				want := amount[[2]string{c, vs.Value}]
				if math.Abs(vs.Amount-want) > math.Pow10(-currencyDecimals(c))/2+1e-6 {
					t.Errorf("seed %d %s: %s %q amount %v, want %v", seed, d.Field, c, vs.Value, vs.Amount, want)
				}
				if total[c] != 0 && math.Abs(vs.Share-want/total[c]) > 0.00005+1e-9 {
					t.Errorf("seed %d %s: %s %q share %v, want %v", seed, d.Field, c, vs.Value, vs.Share, want/total[c])
				}
				if j > 0 && d.TopByMetric[j-1].Currency == vs.Currency && d.TopByMetric[j-1].Amount < vs.Amount {
					t.Errorf("seed %d %s: top by spend not in descending order: %+v", seed, d.Field, d.TopByMetric)
				}
			}
			for c, sh := range shares {
				if sh > 1+1e-3 {
					t.Errorf("seed %d %s: %s shares add up to %v", seed, d.Field, c, sh)
				}
				if listed[c] > opt.TopByMetric {
					t.Errorf("seed %d %s: %d values listed for %s, want at most %d", seed, d.Field, listed[c], c, opt.TopByMetric)
				}
			}
		}
	}
}

func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n, k := r.IntN(60), r.IntN(70)
		xs := make([]int, n)
		for i := range xs {
			xs[i] = r.IntN(10)
		}
		better := func(a, b int) bool { return xs[a] > xs[b] || xs[a] == xs[b] && a < b }
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		want := idx[:min(k, n)]
		if got := topK(n, k, better); !slices.Equal(got, want) {
			t.Fatalf("topK(%v, %d) = %v, want %v", xs, k, got, want)
		}
	}
}

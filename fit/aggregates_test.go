package fit

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// aggregatesOf computes a table's Aggregates the plain way, row by row: what a
// warehouse's aggregate SQL returns for the same rows.
func aggregatesOf(t *Table) *Aggregates {
	a := &Aggregates{Rows: t.Len(), Values: map[string][]ValueAggregate{}, Metrics: map[string][]MetricAggregate{}}
	var cur *Column
	for _, c := range t.Columns {
		if c.Money && c.CurrencyColumn != "" {
			a.CurrencyColumn = c.CurrencyColumn
			cur = t.Column(c.CurrencyColumn)
			break
		}
	}
	currency := func(r int) string {
		if cur == nil {
			return ""
		}
		return cur.Strings[r]
	}
	for _, c := range t.Columns {
		switch {
		case c.Role == RoleMetric:
			byCur := map[string]*MetricAggregate{}
			var order []string
			for r := range t.Len() {
				k := currency(r)
				m := byCur[k]
				if m == nil {
					m = &MetricAggregate{Currency: k}
					byCur[k] = m
					order = append(order, k)
				}
				if c.IsNull(r) {
					m.Empty++
					continue
				}
				v := c.Numbers[r]
				if m.Values == 0 || v < m.Min {
					m.Min = v
				}
				if m.Values == 0 || v > m.Max {
					m.Max = v
				}
				m.Values++
				m.Sum += v
			}
			for _, k := range order {
				a.Metrics[c.Name] = append(a.Metrics[c.Name], *byCur[k])
			}
		case c.Hidden:
		default:
			byKey := map[[2]string]*ValueAggregate{}
			var order [][2]string
			for r, v := range c.Strings {
				k := [2]string{v, currency(r)}
				va := byKey[k]
				if va == nil {
					va = &ValueAggregate{Value: v, Currency: k[1]}
					byKey[k] = va
					order = append(order, k)
				}
				va.Rows++
				if va.MainSums == nil {
					va.MainSums = map[string]MainSum{}
				}
				for _, m := range t.Columns {
					if m.Role == RoleMetric && m.Aggregation == Sum && !m.Hidden && !m.IsNull(r) {
						ms := va.MainSums[m.Name]
						ms.Rows++
						ms.Sum += m.Numbers[r]
						va.MainSums[m.Name] = ms
					}
				}
			}
			for _, k := range order {
				a.Values[c.Name] = append(a.Values[c.Name], *byKey[k])
			}
		}
	}
	return a
}

func summaryJSON(t *testing.T, s *Summary) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A summary from aggregates is the summary of the rows: the warehouse can
// summarize a table it never sends.
func TestSummarizeAggregatesEqualsSummarize(t *testing.T) {
	cases := map[string]*Table{"summaryTable": summaryTable(), "bench": benchTable(20_000)}
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		cases["random"+string(rune('a'+seed%26))+string(rune('0'+seed/26))] = randomTable(r, r.IntN(3000))
	}
	for name, tab := range cases {
		for _, opt := range []SummaryOptions{
			{MainMetric: "spend", TopValues: 20, TopByMetric: 10},
			{MainMetric: "clicks", TopValues: 3, TopByMetric: 2},
			{TopValues: 0, TopByMetric: 0},
		} {
			want := summaryJSON(t, Summarize(tab, opt))
			got := summaryJSON(t, SummarizeAggregates(&Table{Columns: tab.Columns, Grain: tab.Grain}, aggregatesOf(tab), opt))
			if got != want {
				t.Errorf("%s %+v:\n got %s\nwant %s", name, opt, got, want)
			}
		}
	}
}

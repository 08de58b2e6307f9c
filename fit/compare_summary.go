package fit

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Movers are, in a comparison's data_too_large summary, the values of the
// main dimension whose main metric changed most between the windows: the
// largest increases and the largest decreases, per currency for money.
type Movers struct {
	Field     string  `json:"field"`
	Metric    string  `json:"metric"`
	Increases []Mover `json:"largest_increases"`
	Decreases []Mover `json:"largest_decreases"`
}

// Mover is one value's main metric in each window and its change.
type Mover struct {
	Value    string  `json:"value"`
	Currency string  `json:"currency,omitempty"`
	Current  float64 `json:"current"`
	Compare  float64 `json:"compare"`
	Change   float64 `json:"change"`
	// ChangePct is the change in percent of the comparison value (nil when
	// that is zero: the value is new).
	ChangePct *float64 `json:"change_pct,omitempty"`
}

// moversShown is how many movers per direction and currency a full summary
// lists; shedding keeps as many as top values by metric.
const moversShown = 10

// compareSummary completes the summary s of the joined table j: the movers,
// and for the change of a ratio the difference of the two windows' overall
// ratios (never an average of per-row differences).
func (p *pipeline) compareSummary(s *Summary, j *Table) {
	byKey := map[string]int{}
	for i, m := range s.Metrics {
		byKey[m.Field+"\x1f"+m.Currency] = i
	}
	for i, m := range s.Metrics {
		name, pct := strings.CutSuffix(m.Field, ChangePctSuffix)
		if !pct {
			var ok bool
			if name, ok = strings.CutSuffix(m.Field, ChangeSuffix); !ok {
				continue
			}
		}
		src := j.Column(name)
		if src == nil || src.Aggregation != Ratio && src.Numerator == "" {
			continue // a sum's change is a sum; reach's a count per row
		}
		// A ratio's or frequency's change: never averaged.
		s.Metrics[i].Avg = nil
		s.Metrics[i].Overall = nil
		ci, cok := byKey[name+"\x1f"+m.Currency]
		bi, bok := byKey[name+CompareSuffix+"\x1f"+m.Currency]
		if !cok || !bok || s.Metrics[ci].Overall == nil || s.Metrics[bi].Overall == nil {
			continue
		}
		c, b := *s.Metrics[ci].Overall, *s.Metrics[bi].Overall
		switch {
		case !pct:
			s.Metrics[i].Overall = ptr(round(c-b, 4))
		case b != 0:
			s.Metrics[i].Overall = ptr(round((c-b)/b*100, 4))
		}
	}
	// The comparison window's labels say nothing by themselves: the rows'
	// amounts beside them are the current window's. Only their range is kept.
	for i, d := range s.Dimensions {
		if c := j.Column(d.Field); c != nil && d.Field != StatusColumn && strings.HasPrefix(d.Field, ComparePrefix) && c.Unit {
			d.TopValues, d.TopByMetric = []string{}, nil
			d.First, d.Last = labelRange(grainOf(j), c.Strings)
			s.Dimensions[i] = d
		}
	}
	s.Movers = p.movers(j)
}

// labelRange is the earliest and latest non-empty label of grain g, by the
// first day each names (a comparison period's dates, "2026-06-04..2026-07-02",
// sort among calendar labels such as "2026-Q3" by that day).
func labelRange(g Grain, labels []string) (first, last string) {
	day := func(l string) string {
		if from, _, ok := strings.Cut(l, SpanSeparator); ok {
			return from
		}
		if d, err := ParsePeriod(g, l); err == nil {
			return d.Format(time.DateOnly)
		}
		return l
	}
	var firstDay, lastDay string
	for _, l := range labels {
		if l == "" {
			continue
		}
		if d := day(l); first == "" || d < firstDay {
			first, firstDay = l, d
		}
		if d := day(l); last == "" || d > lastDay {
			last, lastDay = l, d
		}
	}
	return first, last
}

// movers ranks the main dimension's values by the change of the main metric.
func (p *pipeline) movers(j *Table) *Movers {
	dim, metric := mainDimension(j), p.mainMetric(j)
	d, m, b := j.Column(dim), j.Column(metric), j.Column(metric+CompareSuffix)
	if dim == "" || metric == "" || b == nil {
		return nil
	}
	cur := func(int) string { return m.Currency }
	if cc := j.Column(m.CurrencyColumn); m.CurrencyColumn != "" && cc != nil {
		cur = func(r int) string { return cc.Strings[r] }
	}
	type acc struct {
		value, currency string
		c, b            ksum
	}
	index := map[string]int{}
	var accs []*acc
	for r := range j.Len() {
		k := d.Strings[r] + "\x1f" + cur(r)
		i, ok := index[k]
		if !ok {
			i = len(accs)
			index[k] = i
			accs = append(accs, &acc{value: d.Strings[r], currency: cur(r)})
		}
		if !m.IsNull(r) {
			accs[i].c.add(m.Numbers[r])
		}
		if !b.IsNull(r) {
			accs[i].b.add(b.Numbers[r])
		}
	}
	out := &Movers{Field: dim, Metric: metric, Increases: []Mover{}, Decreases: []Mover{}}
	var currencies []string
	for _, a := range accs {
		if !slices.Contains(currencies, a.currency) {
			currencies = append(currencies, a.currency)
		}
	}
	slices.Sort(currencies)
	for _, c := range currencies {
		var ups, downs []Mover
		dec := 4
		if m.Money {
			dec = currencyDecimals(c)
		}
		for _, a := range accs {
			if a.currency != c {
				continue
			}
			cv, bv := a.c.value(), a.b.value()
			mv := Mover{Value: a.value, Current: round(cv, dec), Compare: round(bv, dec), Change: round(cv-bv, dec)}
			if m.Money {
				mv.Currency = c
			}
			if bv != 0 {
				mv.ChangePct = ptr(round((cv-bv)/bv*100, 4))
			}
			switch {
			case mv.Change > 0:
				ups = append(ups, mv)
			case mv.Change < 0:
				downs = append(downs, mv)
			}
		}
		slices.SortStableFunc(ups, func(x, y Mover) int {
			return cmp.Or(cmp.Compare(y.Change, x.Change), strings.Compare(x.Value, y.Value))
		})
		slices.SortStableFunc(downs, func(x, y Mover) int {
			return cmp.Or(cmp.Compare(x.Change, y.Change), strings.Compare(x.Value, y.Value))
		})
		out.Increases = append(out.Increases, ups[:min(len(ups), moversShown)]...)
		out.Decreases = append(out.Decreases, downs[:min(len(downs), moversShown)]...)
	}
	return out
}

// trimMovers keeps at most k movers per direction and currency.
func trimMovers(mv *Movers, k int) *Movers {
	if mv == nil || k < 0 {
		return mv
	}
	keep := func(list []Mover) []Mover {
		out := []Mover{}
		run := 0
		for i, x := range list {
			if i == 0 || x.Currency != list[i-1].Currency {
				run = 0
			}
			if run < k {
				out = append(out, x)
			}
			run++
		}
		return out
	}
	c := *mv
	c.Increases, c.Decreases = keep(mv.Increases), keep(mv.Decreases)
	return &c
}

package fit

import "slices"

// A summary describes the rows of the answer: the rows step 1 kept. Its sums
// and overall ratios are named as totals, and an assistant repeats them as
// the totals of what was asked — so they are over everything asked: the rows
// step 1 removed (delivery not attributed to any value of the dimensions,
// reported as removed_totals) are in them too, and so are the shares of the
// values ranked by the main metric. Min, max, avg and the counts of values
// describe the rows.

// overWhole sets the Sum and Overall of s's metric summaries to those of
// whole (the same metrics over every row asked), matching field and
// currency; a currency only the removed rows have is added with its sum and
// overall alone.
func (s *Summary) overWhole(whole []MetricSummary) {
	for _, w := range whole {
		i := slices.IndexFunc(s.Metrics, func(m MetricSummary) bool { return m.Field == w.Field && m.Currency == w.Currency })
		if i < 0 {
			if w.Sum == nil && w.Overall == nil {
				continue
			}
			// After the field's other currencies, in currency order.
			at := len(s.Metrics)
			for j, m := range s.Metrics {
				if m.Field == w.Field {
					at = j + 1
					if m.Currency > w.Currency {
						at = j
						break
					}
				}
			}
			s.Metrics = slices.Insert(s.Metrics, at, MetricSummary{Field: w.Field, Aggregation: w.Aggregation, Currency: w.Currency, Sum: w.Sum, Overall: w.Overall})
			continue
		}
		s.Metrics[i].Sum, s.Metrics[i].Overall = w.Sum, w.Overall
	}
	// A value's share is of the same whole.
	for _, d := range s.Dimensions {
		for j, v := range d.TopByMetric {
			i := slices.IndexFunc(whole, func(m MetricSummary) bool { return m.Field == d.MainMetric && m.Currency == v.Currency })
			if i >= 0 && whole[i].Sum != nil && *whole[i].Sum != 0 {
				d.TopByMetric[j].Share = round(v.Amount / *whole[i].Sum, 4)
			}
		}
	}
}

// metricSummariesOf are the metric summaries of every row of t: Summarize of
// its metric columns and the currency columns they name.
func metricSummariesOf(t *Table) []MetricSummary {
	keep := map[string]bool{}
	for _, c := range t.Columns {
		if c.Role == RoleMetric {
			keep[c.Name] = true
			if c.CurrencyColumn != "" {
				keep[c.CurrencyColumn] = true
			}
		}
	}
	proj := &Table{Grain: Total, RowsBeforeLimit: t.Len()}
	for _, c := range t.Columns {
		if keep[c.Name] {
			proj.Columns = append(proj.Columns, c)
		}
	}
	return Summarize(proj, SummaryOptions{}).Metrics
}

// metricAggregatesOf are the Aggregates.Metrics of t's rows, per value of
// currencyColumn ("" when none) for every metric as Aggregates has them, to
// add to those of other rows.
func metricAggregatesOf(t *Table, currencyColumn string) map[string][]MetricAggregate {
	out := map[string][]MetricAggregate{}
	byCurrency := &Column{CurrencyColumn: currencyColumn}
	for _, c := range t.Columns {
		if c.Role != RoleMetric {
			continue
		}
		g := newCurrencyGroups(t, byCurrency)
		for i, a := range accumulate(c, g) {
			out[c.Name] = append(out[c.Name], MetricAggregate{Currency: g.names[i], Values: a.values, Empty: a.empty, Min: a.min, Max: a.max, Sum: a.sum.value()})
		}
	}
	return out
}

// withRemoved is a's metric aggregates with removed's rows added (its value
// aggregates are not needed for sums and overall ratios, and left out).
func withRemoved(a *Aggregates, removed *Table) *Aggregates {
	out := &Aggregates{Rows: a.Rows + removed.Len(), CurrencyColumn: a.CurrencyColumn, Metrics: map[string][]MetricAggregate{}}
	for name, ms := range a.Metrics {
		out.Metrics[name] = slices.Clone(ms)
	}
	for name, ms := range metricAggregatesOf(removed, a.CurrencyColumn) {
		out.Metrics[name] = append(out.Metrics[name], ms...)
	}
	return out
}

// askedWhole is every row asked of a comparison answer, joined at total
// grain: both windows as the source returned them, step 1's rows included;
// nil when the comparison selects rows (a filter or a limit: its summary
// describes the rows selected, which step 1's rows never were).
func (p *pipeline) askedWhole(cur, base *Table) (*Table, error) {
	if p.cmp.cmp.Keep != nil || p.cmp.cmp.Limit > 0 {
		return nil, nil
	}
	total := func(t *Table) (*Table, error) {
		if grainOf(t) == Total {
			return t, nil
		}
		out, _, err := Rollup(t, Total)
		return out, err
	}
	c, err := total(cur)
	if err != nil {
		return nil, err
	}
	b, err := total(base)
	if err != nil {
		return nil, err
	}
	joined, _, err := joinWindows(c, b, Total, []string{""}, []string{""})
	return joined, err
}

package fit

// Aggregates are what a summary needs of a table, computed where the table's
// rows are (a warehouse's aggregate SQL), so that a table too large to bring
// into memory is summarized without its rows. SummarizeAggregates of a table's
// aggregates and Summarize of the table give the same summary.
//
// Every figure is over the table's rows; Currency, wherever it appears, is a
// row's value of the table's currency column (CurrencyColumn, the column the
// money columns name), "" when the table has none.
type Aggregates struct {
	// Rows is the number of rows.
	Rows int
	// CurrencyColumn names the table's currency column, "" when there is none.
	CurrencyColumn string
	// Values are, for each visible dimension and the time column (by column
	// name), the distinct values, each once per currency it occurs with.
	Values map[string][]ValueAggregate
	// Metrics are, for each metric column (by name; hidden parts of ratios
	// too), its aggregates over the rows of each currency.
	Metrics map[string][]MetricAggregate
}

// ValueAggregate is one distinct value of a dimension among the rows of one
// currency.
type ValueAggregate struct {
	Value, Currency string
	// Rows is how many rows have the value.
	Rows int
	// NonZero says one of those rows has a visible metric other than zero,
	// Valued that one has a visible metric with a value (all-zero checks).
	NonZero, Valued bool
	// MainSums are, for each visible Sum metric (the summary ranks values by
	// one of them), its rows with a value among them and its sum over them.
	MainSums map[string]MainSum
}

// MainSum is a Sum metric over the rows of one value.
type MainSum struct {
	Rows int
	Sum  float64
}

// MetricAggregate is one metric over the rows of one currency.
type MetricAggregate struct {
	Currency string
	// Values counts the rows with a value, Empty those without; Min, Max and
	// Sum are over the rows with a value.
	Values, Empty int
	Min, Max, Sum float64
	// Num and Den are the sums of a ratio's numerator and denominator columns,
	// each over the rows where that part has a value.
	Num, Den float64
}

// SummarizeAggregates is the summary of the table whose columns are schema's
// (its rows are not needed: schema may have none) and whose aggregates are a:
// the same summary Summarize computes from the rows themselves — the same
// values ranked the same way, the same rounding — with sums added from a's.
func SummarizeAggregates(schema *Table, a *Aggregates, opt SummaryOptions) *Summary {
	s := &Summary{
		TotalRows:       a.Rows,
		TimeGranularity: schema.Grain,
		Dimensions:      []DimensionSummary{},
		Metrics:         []MetricSummary{},
	}
	if s.TimeGranularity == "" {
		s.TimeGranularity = Total
	}
	main := pickMainMetric(schema, opt.MainMetric)
	var mainGroups *aggGroups
	if main != nil {
		mainGroups = groupsFor(schema, main, a)
	}
	for _, c := range schema.Columns {
		switch {
		case c.Hidden:
		case c.Role == RoleMetric:
			g := groupsFor(schema, c, a)
			accs := make([]metricAcc, len(g.names))
			for _, m := range a.Metrics[c.Name] {
				acc := &accs[g.of(m.Currency)]
				acc.empty += m.Empty
				if m.Values > 0 {
					if acc.values == 0 || m.Min < acc.min {
						acc.min = m.Min
					}
					if acc.values == 0 || m.Max > acc.max {
						acc.max = m.Max
					}
					acc.values += m.Values
					acc.sum.add(m.Sum)
				}
			}
			withParts := c.Aggregation == Ratio && schema.Column(c.Numerator) != nil && schema.Column(c.Denominator) != nil
			if withParts { // Σnumerator / Σdenominator: the parts' sums
				for _, m := range a.Metrics[c.Numerator] {
					accs[g.of(m.Currency)].num.add(m.Sum)
				}
				for _, m := range a.Metrics[c.Denominator] {
					accs[g.of(m.Currency)].den.add(m.Sum)
				}
			}
			s.Metrics = append(s.Metrics, metricSummaries(c, accs, g.names, g.order, withParts)...)
		default:
			s.Dimensions = append(s.Dimensions, summarizeValues(c, a.Values[c.Name], main, mainGroups, a, opt))
		}
	}
	return s
}

// summarizeValues is summarizeDimension over a column's value aggregates.
func summarizeValues(c *Column, values []ValueAggregate, main *Column, groups *aggGroups, a *Aggregates, opt SummaryOptions) DimensionSummary {
	d := DimensionSummary{Field: c.Name, TopValues: []string{}}
	idx := map[string]int32{}
	var vals []string
	var counts []int
	id := func(v string) int32 {
		i, ok := idx[v]
		if !ok {
			i = int32(len(vals))
			idx[v] = i
			vals = append(vals, v)
			counts = append(counts, 0)
		}
		return i
	}
	for _, v := range values {
		counts[id(v.Value)] += v.Rows
	}
	rankValues(&d, c.Role == RoleTime, vals, counts, opt.TopValues)
	if main == nil {
		return d
	}
	d.MainMetric = main.Name
	d.TopByMetric = []ValueShare{}
	showCurrency := main.Money && len(groups.names) > 1
	for _, g := range groups.order {
		amount := make([]float64, len(vals))
		seen := make([]bool, len(vals))
		var touched []int32
		total := ksum{}
		for _, v := range values {
			ms := v.MainSums[main.Name]
			if groups.of(v.Currency) != g || ms.Rows == 0 {
				continue
			}
			i := idx[v.Value]
			if !seen[i] {
				seen[i] = true
				touched = append(touched, i)
			}
			amount[i] += ms.Sum
			total.add(ms.Sum)
		}
		currency := ""
		if showCurrency {
			currency = groups.names[g]
		}
		dec := 4
		if main.Money {
			dec = currencyDecimals(groups.names[g])
		}
		d.TopByMetric = append(d.TopByMetric, rankByAmount(vals, touched, amount, total.value(), dec, currency, opt.TopByMetric)...)
	}
	return d
}

// aggGroups maps the currencies of a column's aggregates to its summary's
// groups: one per currency for money (and ratios of money), one for the rest.
type aggGroups struct {
	names []string
	order []int32
	// byCurrency is nil when every currency is group 0.
	byCurrency map[string]int32
}

func (g *aggGroups) of(currency string) int32 {
	if g.byCurrency == nil {
		return 0
	}
	return g.byCurrency[currency]
}

func groupsFor(schema *Table, c *Column, a *Aggregates) *aggGroups {
	src := moneySource(schema, c)
	g := &aggGroups{}
	switch {
	case src == nil:
		g.names = []string{""}
	case src.CurrencyColumn == "" || src.CurrencyColumn != a.CurrencyColumn:
		g.names = []string{src.Currency}
	default:
		g.byCurrency = map[string]int32{}
		add := func(cur string) {
			if _, ok := g.byCurrency[cur]; !ok {
				g.byCurrency[cur] = int32(len(g.names))
				g.names = append(g.names, cur)
			}
		}
		for _, m := range a.Metrics[c.Name] {
			add(m.Currency)
		}
		for _, vs := range a.Values {
			for _, v := range vs {
				add(v.Currency)
			}
		}
		if len(g.names) == 0 {
			g.names = []string{src.Currency}
		}
	}
	g.order = byName(g.names)
	return g
}

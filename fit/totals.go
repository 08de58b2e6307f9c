package fit

import (
	"strconv"
)

// Totals are the sums of the Sum metrics of a set of rows in one currency: what
// rows removed from an answer carried, so that the rows returned plus these
// totals still equal the complete totals and nothing is lost silently.
type Totals struct {
	// Currency of the money values ("" when the table has no money).
	Currency string
	// Rows is how many rows were summed.
	Rows int
	// Metrics are the Sum columns' names in table order, Values their sums.
	Metrics []string
	Values  []float64
	// Money[i] marks Metrics[i] as an amount in Currency.
	Money []bool
}

// MarshalJSON writes {"currency":…,"rows":…,"<metric>":<sum>,…}: money rounded to
// the currency's minor unit, other sums in shortest exact form.
func (t Totals) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	if t.Currency != "" {
		b = append(b, `"currency":`...)
		b = appendJSON(b, t.Currency)
		b = append(b, ',')
	}
	b = append(b, `"rows":`...)
	b = strconv.AppendInt(b, int64(t.Rows), 10)
	for i, m := range t.Metrics {
		b = append(b, ',')
		b = appendJSON(b, m)
		b = append(b, ':')
		decimals := -1
		if t.Money[i] {
			decimals = currencyDecimals(t.Currency)
		}
		b = appendNumber(b, t.Values[i], decimals)
	}
	return append(b, '}'), nil
}

// totalsOf sums the Sum metric columns of rows of t per currency, in order of
// first appearance of each currency. Null values count as nothing.
func totalsOf(t *Table, rows []int) []Totals {
	var sums []*Column
	var currency *Column
	fixed := ""
	for _, c := range t.Columns {
		if c.Role != RoleMetric || c.Aggregation != Sum {
			continue
		}
		sums = append(sums, c)
		if c.Money && currency == nil && fixed == "" {
			if c.CurrencyColumn != "" {
				currency = t.Column(c.CurrencyColumn)
			} else {
				fixed = c.Currency
			}
		}
	}
	if currency == nil && fixed == "" {
		// No money summed, but rows may still be in several currencies (a
		// currency column asked for): totals stay per currency all the same.
		for _, c := range t.Columns {
			if c.Role == RoleDimension && c.Unit {
				currency = c
				break
			}
		}
	}
	if len(rows) == 0 {
		return nil
	}
	index := map[string]int{}
	var out []Totals
	acc := [][]ksum{}
	for _, r := range rows {
		cur := fixed
		if currency != nil {
			cur = currency.Strings[r]
		}
		i, ok := index[cur]
		if !ok {
			i = len(out)
			index[cur] = i
			tot := Totals{Currency: cur, Values: make([]float64, len(sums)), Money: make([]bool, len(sums))}
			for j, c := range sums {
				tot.Metrics = append(tot.Metrics, c.Name)
				tot.Money[j] = c.Money
			}
			out = append(out, tot)
			acc = append(acc, make([]ksum, len(sums)))
		}
		out[i].Rows++
		for j, c := range sums {
			if !c.IsNull(r) {
				acc[i][j].add(c.Numbers[r])
			}
		}
	}
	for i := range out {
		for j := range sums {
			out[i].Values[j] = acc[i][j].value()
		}
	}
	return out
}

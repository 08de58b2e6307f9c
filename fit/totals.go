package fit

import (
	"strconv"
	"strings"
)

// Totals are the sums of the Sum metrics of a set of rows in one currency and
// one value of every other unit column (an attribution window): what rows
// removed from an answer carried, so that the rows returned plus these totals
// still equal the complete totals and nothing is lost silently — and numbers
// measured differently are never added up.
type Totals struct {
	// Currency of the money values ("" when the table has no money).
	Currency string
	// Units are the values the summed rows share in the table's other unit
	// dimensions (Column.Unit), in column order: an attribution window, or the
	// currency column of a table that sums no money.
	Units []UnitValue
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
	for _, u := range t.Units {
		b = appendJSON(b, u.Column)
		b = append(b, ':')
		b = appendJSON(b, u.Value)
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

// UnitValue is a row's value in a unit column.
type UnitValue struct {
	Column, Value string
}

// totalsOf sums the Sum metric columns of rows of t per currency and value of
// the other unit columns, in order of first appearance. Null values count as
// nothing.
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
	// Rows in several currencies without money summed (a currency column
	// asked for), or counted under several windows, are summed apart all
	// the same.
	var units []*Column
	for _, c := range t.Columns {
		if c.Role == RoleDimension && c.Unit && c != currency {
			units = append(units, c)
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
		key := []string{cur}
		var vals []UnitValue
		for _, u := range units {
			key = append(key, u.Strings[r])
			vals = append(vals, UnitValue{Column: u.Name, Value: u.Strings[r]})
		}
		k := strings.Join(key, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			tot := Totals{Currency: cur, Units: vals, Values: make([]float64, len(sums)), Money: make([]bool, len(sums))}
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

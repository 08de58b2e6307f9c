package fit

import (
	"fmt"
	"reflect"
	"slices"
	"time"
)

// The column constructors below spell a Table's schema without the Column
// struct's every field: a server that only has rows of values builds its table
// with them and a Builder, and never touches Strings, Numbers or Null.

// Dimension is a dimension column: rows group by its values (a product, a
// country).
func Dimension(name string) *Column { return &Column{Name: name, Role: RoleDimension} }

// Period is the time column of a table at grain g, named as the pipeline names
// it at every grain (g.TimeColumn(): date, week, month or quarter), so a sort on it and
// its roll-ups keep their meaning. A Total table has no time column.
func Period(g Grain) *Column { return &Column{Name: g.TimeColumn(), Role: RoleTime} }

// SumMetric is a metric that adds up across rows (revenue, clicks).
func SumMetric(name string) *Column {
	return &Column{Name: name, Role: RoleMetric, Aggregation: Sum}
}

// RatioMetric is numerator / denominator × scale (100 for a percentage),
// recomputed from the summed parts whenever rows merge, never averaged. Both
// parts must be metric columns of the same table; add them with AsHidden when
// nobody asked to see them.
func RatioMetric(name, numerator, denominator string, scale float64) *Column {
	return &Column{Name: name, Role: RoleMetric, Aggregation: Ratio,
		Numerator: numerator, Denominator: denominator, Scale: scale}
}

// NonAdditiveMetric is a metric that cannot be merged (a distinct count such
// as unique visitors): a coarser grain needs it from Options.Requery, or
// leaves it out and says so.
func NonAdditiveMetric(name string) *Column {
	return &Column{Name: name, Role: RoleMetric, Aggregation: NonAdditive}
}

// InCurrency marks the metric as an amount of money in one currency (an ISO
// 4217 code): it is rounded to the currency's minor unit. It returns c.
func (c *Column) InCurrency(code string) *Column {
	c.Money, c.Currency = true, code
	return c
}

// InCurrencyOf marks the metric as money whose currency each row names in the
// dimension column currencyColumn: amounts of different currencies are never
// added up, and that column is not a breakdown (JudgedDimensions). It
// returns c.
func (c *Column) InCurrencyOf(currencyColumn string) *Column {
	c.Money, c.CurrencyColumn = true, currencyColumn
	return c
}

// AsUnit marks a dimension that describes how the row is measured (a
// currency, an attribution window), not a breakdown (see Column.Unit). It
// returns c.
func (c *Column) AsUnit() *Column {
	c.Unit = true
	return c
}

// AsHidden marks a column carried only for exact roll-ups (the parts of a
// ratio): never shown to the model. It returns c.
func (c *Column) AsHidden() *Column {
	c.Hidden = true
	return c
}

// Builder builds a Table row by row, for producers whose results come as rows
// (database/sql, an API's JSON) rather than as columns.
type Builder struct {
	grain Grain
	cols  []*Column
	rows  int
	err   error
}

// NewBuilder starts a table at grain g with these columns, in this order. The
// columns' schemas are copied (their values, if any, are not), so the same
// constructors can serve several tables. A table at a grain other than Total
// needs one Period(g) column.
func NewBuilder(g Grain, cols ...*Column) *Builder {
	b := &Builder{grain: g}
	for _, c := range cols {
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = nil, nil, nil
		b.cols = append(b.cols, &nc)
	}
	return b
}

// Row appends one row: one value per column, in column order. A dimension
// takes a string; the time column a string label or a time.Time (labelled
// at the table's grain: the day, its ISO week's Monday, its month, its quarter); a metric
// any Go number, or nil for no value. The first bad row is reported by Table,
// and the rows after it are ignored. It returns b.
func (b *Builder) Row(values ...any) *Builder {
	if b.err != nil {
		return b
	}
	if len(values) != len(b.cols) {
		b.err = fmt.Errorf("fit: row %d has %d values for %d columns", b.rows, len(values), len(b.cols))
		return b
	}
	// Check the whole row before appending any of it, so the columns stay of
	// equal length whatever Row reports.
	strs := make([]string, len(values))
	nums := make([]float64, len(values))
	nulls := make([]bool, len(values))
	for i, v := range values {
		c := b.cols[i]
		var err error
		switch c.Role {
		case RoleMetric:
			nums[i], nulls[i], err = numberOf(v)
		case RoleTime:
			strs[i], err = b.labelOf(v)
		default:
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("want a string, got %T", v)
			}
			strs[i] = s
		}
		if err != nil {
			b.err = fmt.Errorf("fit: row %d, column %q: %w", b.rows, c.Name, err)
			return b
		}
	}
	for i, c := range b.cols {
		if c.Role != RoleMetric {
			c.Strings = append(c.Strings, strs[i])
			continue
		}
		c.Numbers = append(c.Numbers, nums[i])
		if nulls[i] && c.Null == nil {
			c.Null = make([]bool, b.rows, b.rows+1)
		}
		if c.Null != nil {
			c.Null = append(c.Null, nulls[i])
		}
	}
	b.rows++
	return b
}

// labelOf is a time column's label: a string as given, a time.Time as its
// period at the builder's grain.
func (b *Builder) labelOf(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case time.Time:
		return periodOf(b.grain, v), nil
	}
	return "", fmt.Errorf("want a time.Time or a string label, got %T", v)
}

// numberOf is a metric's value: any Go number, or nil for no value.
func numberOf(v any) (n float64, null bool, err error) {
	if v == nil {
		return 0, true, nil
	}
	r := reflect.ValueOf(v)
	switch {
	case r.CanFloat():
		return r.Float(), false, nil
	case r.CanInt():
		return float64(r.Int()), false, nil
	case r.CanUint():
		return float64(r.Uint()), false, nil
	}
	return 0, false, fmt.Errorf("want a number or nil, got %T", v)
}

// Table returns the rows added so far as a validated Table, or the first
// error: a bad row, or a table Validate rejects (a ratio whose parts are
// missing, two time columns, NaN). Rows added afterwards do not change the
// table returned.
func (b *Builder) Table() (*Table, error) {
	if b.err != nil {
		return nil, b.err
	}
	t := &Table{Grain: b.grain, RowsBeforeLimit: b.rows}
	for _, c := range b.cols {
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = slices.Clip(c.Strings), slices.Clip(c.Numbers), slices.Clip(c.Null)
		t.Columns = append(t.Columns, &nc)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

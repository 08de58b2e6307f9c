package fit

import (
	"fmt"
	"math"
)

// Role is what a column is for in the table.
type Role int

const (
	// RoleDimension columns group rows (campaign name, country…).
	RoleDimension Role = iota
	// RoleTime is the single time column; its labels follow the table's Grain.
	RoleTime
	// RoleMetric columns are measured numbers.
	RoleMetric
)

func (r Role) String() string {
	switch r {
	case RoleDimension:
		return "dimension"
	case RoleTime:
		return "time"
	case RoleMetric:
		return "metric"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Aggregation says how a metric combines when rows are merged.
type Aggregation int

const (
	// Sum metrics add up across rows.
	Sum Aggregation = iota
	// Ratio metrics are Σnumerator / Σdenominator × Scale over merged rows; the
	// numerator and denominator are other columns of the table (possibly Hidden).
	Ratio
	// NonAdditive metrics (distinct counts and what derives from them) cannot be
	// merged at all; a coarser grain needs them computed afresh by the source.
	NonAdditive
)

func (a Aggregation) String() string {
	switch a {
	case Sum:
		return "sum"
	case Ratio:
		return "ratio"
	case NonAdditive:
		return "non_additive"
	}
	return fmt.Sprintf("Aggregation(%d)", int(a))
}

// Grain is the time granularity of a table's time column.
type Grain string

const (
	Daily   Grain = "daily"
	Weekly  Grain = "weekly"
	Monthly Grain = "monthly"
	// Quarterly rows are calendar quarters (Q1 = January to March), labelled
	// YYYY-Qn ("2026-Q4"): the step between months and the whole range, so a
	// trend can survive when monthly rows do not fit.
	Quarterly Grain = "quarterly"
	Total     Grain = "total"
)

// Grains lists the grains from finest to coarsest; the pipeline coarsens along it.
var Grains = []Grain{Daily, Weekly, Monthly, Quarterly, Total}

// Valid reports whether g is one of Grains.
func (g Grain) Valid() bool {
	for _, x := range Grains {
		if g == x {
			return true
		}
	}
	return false
}

// TimeColumn is the name of the time column at this grain: "date", "week" (the
// ISO week's Monday, YYYY-MM-DD), "month" (YYYY-MM), "quarter" (YYYY-Qn), or ""
// for Total.
func (g Grain) TimeColumn() string {
	switch g {
	case Daily:
		return "date"
	case Weekly:
		return "week"
	case Monthly:
		return "month"
	case Quarterly:
		return "quarter"
	}
	return ""
}

// Column is one column of a Table: its schema and its values. Dimension and time
// columns hold Strings; metric columns hold Numbers, with Null marking empty values
// (a ratio over a zero denominator, a metric a platform does not report).
type Column struct {
	Name string
	Role Role

	// Metric semantics.
	Aggregation Aggregation
	// Numerator and Denominator name the columns a Ratio is computed from, Scale
	// multiplies the quotient (100 for a percentage).
	Numerator, Denominator string
	Scale                  float64
	// Money marks an amount in a currency. CurrencyColumn names the dimension column
	// holding each row's currency; when empty, Currency applies to every row.
	Money          bool
	Currency       string
	CurrencyColumn string
	// Unit marks a dimension that describes how the row is measured rather
	// than what it breaks down: the currency money is in, the attribution
	// window conversions are counted under (adsmcp marks every column its
	// normalization adds), a comparison's period and status. Step 1 does not
	// judge it when it decides whether a row's dimensions are all empty, so
	// it never makes an unattributed row take a place in a top N (see
	// JudgedDimensions); what removed rows carried is summed apart for each
	// of its values (Totals).
	Unit bool
	// Hidden columns are carried for exact roll-ups (the parts of a ratio nobody
	// asked for) and never shown to the model.
	Hidden bool

	Strings []string
	Numbers []float64
	// Null[i] is true when row i has no value. A nil slice means no nulls.
	Null []bool
}

// IsNull reports whether row i of a metric column is empty.
func (c *Column) IsNull(i int) bool { return c.Null != nil && c.Null[i] }

// Len is the number of values the column holds.
func (c *Column) Len() int {
	if c.Role == RoleMetric {
		return len(c.Numbers)
	}
	return len(c.Strings)
}

// Notice is something the producer of a table wants the reader to know, such as a
// metric it could not compute at the requested grain.
type Notice struct {
	Type   string   `json:"type"`
	Detail string   `json:"detail"`
	Fields []string `json:"fields,omitempty"`
	// AboutEmpty, when set, says the notice explains rows whose every one of
	// these dimensions is empty: a narrower answer kept to named values of
	// one of them, or grouped by none of them, has no such row, and a
	// suggestion's token estimate leaves the notice out.
	AboutEmpty []string `json:"-"`
}

// Table is a complete, column-oriented query result.
type Table struct {
	Columns []*Column
	// Grain of the time column; Total when the table has none.
	Grain Grain
	// RowsBeforeLimit is the number of rows that existed before an explicit top-N
	// limit was applied; equal to Len() when no limit cut anything.
	RowsBeforeLimit int
	Notices         []Notice
}

// Len is the number of rows.
func (t *Table) Len() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return t.Columns[0].Len()
}

// Column returns the column with this name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Validate checks that the table is well formed: equal column lengths, at most one
// time column, ratio parts present, currency columns present.
func (t *Table) Validate() error {
	n := t.Len()
	times := 0
	for _, c := range t.Columns {
		if c.Len() != n {
			return fmt.Errorf("fit: column %q has %d values, want %d", c.Name, c.Len(), n)
		}
		if c.Null != nil && len(c.Null) != n {
			return fmt.Errorf("fit: column %q has %d null flags, want %d", c.Name, len(c.Null), n)
		}
		switch c.Role {
		case RoleTime:
			times++
		case RoleMetric:
			if c.Aggregation == Ratio {
				for _, part := range []string{c.Numerator, c.Denominator} {
					p := t.Column(part)
					if p == nil || p.Role != RoleMetric {
						return fmt.Errorf("fit: ratio %q needs metric column %q", c.Name, part)
					}
				}
			}
			if c.CurrencyColumn != "" && t.Column(c.CurrencyColumn) == nil {
				return fmt.Errorf("fit: money column %q names missing currency column %q", c.Name, c.CurrencyColumn)
			}
			for i, v := range c.Numbers {
				if !c.IsNull(i) && (math.IsNaN(v) || math.IsInf(v, 0)) {
					return fmt.Errorf("fit: column %q row %d is %v; use Null for empty values", c.Name, i, v)
				}
			}
		}
	}
	if times > 1 {
		return fmt.Errorf("fit: %d time columns, want at most one", times)
	}
	if (times == 1) == (t.Grain == Total || t.Grain == "") {
		return fmt.Errorf("fit: grain %q with %d time columns", t.Grain, times)
	}
	return nil
}

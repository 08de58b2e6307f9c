package query

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
)

// Operator is a filter operator.
type Operator string

// Filter operators; text matching is case-insensitive.
const (
	Equals             Operator = "EQUALS"
	NotEquals          Operator = "NOT_EQUALS"
	Contains           Operator = "CONTAINS"
	NotContains        Operator = "NOT_CONTAINS"
	StartsWith         Operator = "STARTS_WITH"
	In                 Operator = "IN"
	NotIn              Operator = "NOT_IN"
	GreaterThan        Operator = "GREATER_THAN"
	GreaterThanOrEqual Operator = "GREATER_THAN_OR_EQUAL"
	LessThan           Operator = "LESS_THAN"
	LessThanOrEqual    Operator = "LESS_THAN_OR_EQUAL"
	Between            Operator = "BETWEEN"
)

// Operators lists every operator in documentation order.
var Operators = []Operator{Equals, NotEquals, Contains, NotContains, StartsWith, In, NotIn,
	GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual, Between}

// TextOperators are the operators valid on string fields.
var TextOperators = []Operator{Equals, NotEquals, Contains, NotContains, StartsWith, In, NotIn}

// NumberOperators are the operators valid on numeric fields (metrics).
var NumberOperators = []Operator{Equals, NotEquals, In, NotIn, GreaterThan, GreaterThanOrEqual,
	LessThan, LessThanOrEqual, Between}

// Filter is a validated filter on a canonical field. Values holds strings for
// dimensions and float64 for metrics: one value, two for BETWEEN, one or more for
// IN and NOT_IN.
type Filter struct {
	Field    string
	Operator Operator
	Values   []any
	// Metric filters apply to aggregated rows (HAVING), dimension filters to the
	// underlying data (WHERE).
	Metric bool
}

// SortKey is a validated sort key on a returned column.
type SortKey struct {
	Field string
	Desc  bool
}

// Query is a normalized, validated query: canonical field names, resolved dates and
// accounts, ready for a source to run.
type Query struct {
	// Accounts are the accounts to query, in the order given (or list order).
	Accounts   []ads.Account
	Platforms  []string
	Start, End time.Time // inclusive civil dates, UTC midnight
	// Preset is the date_preset the dates were resolved from, if any.
	Preset string
	// Location is the timezone presets were resolved in.
	Location   string
	Dimensions []string
	Metrics    []string
	Grain      fit.Grain
	Filters    []Filter
	Sort       []SortKey
	Limit      int // 0: no limit
	// Compare is the comparison window of a period-over-period query (nil:
	// none). Sort keys and filters may then name the derived columns of the
	// metrics (SplitDerived).
	Compare *Compare
	// AttributionWindow is the window conversions are asked under
	// (catalog.ParseAttributionWindow's canonical name); "" is each
	// account's own (WindowOf).
	AttributionWindow string
	// LimitPerCurrency: the sort ranks money over accounts of several
	// currencies, so rows are ranked (and limited) within each currency —
	// sort starts with currency — never across currencies as one unit.
	LimitPerCurrency bool
	// TokenBudget is the caller's requested budget (0: none); it may only lower
	// the client's budget.
	TokenBudget int
	// Changes lists every correction normalization made.
	Changes []Change
	// Warnings are what normalization found the user must be told (a money
	// threshold applied in several currencies).
	Warnings []Change
}

// AccountIDs returns the IDs of the queried accounts.
func (q *Query) AccountIDs() []string {
	ids := make([]string, len(q.Accounts))
	for i, a := range q.Accounts {
		ids[i] = a.AccountID
	}
	return ids
}

// Days is the number of days in the date range.
func (q *Query) Days() int { return daysBetween(q.Start, q.End) }

// Args returns the query as complete, ready-to-run tool arguments: explicit account
// IDs and date range, canonical names. Running them again gives the same query:
// compare is written as its mode (the window follows from the date range) or,
// for an explicit window, as {start, end}.
func (q *Query) Args() Args {
	a := Args{
		AccountIDs:      q.AccountIDs(),
		Platforms:       q.Platforms,
		DateRange:       &DateRange{Start: q.Start.Format(time.DateOnly), End: q.End.Format(time.DateOnly)},
		Dimensions:      q.Dimensions,
		Metrics:         q.Metrics,
		TimeGranularity: string(q.Grain),
	}
	for _, f := range q.Filters {
		var v any
		switch f.Operator {
		case In, NotIn, Between:
			v = f.Values
		default:
			v = f.Values[0]
		}
		a.Filters = append(a.Filters, FilterArg{Field: f.Field, Operator: string(f.Operator), Value: v})
	}
	for _, s := range q.Sort {
		d := "asc"
		if s.Desc {
			d = "desc"
		}
		a.Sort = append(a.Sort, SortArg{Field: s.Field, Direction: d})
	}
	if q.Limit > 0 {
		l := q.Limit
		a.Limit = &l
	}
	if c := q.Compare; c != nil {
		a.Compare = &CompareArg{Mode: c.Mode}
		if c.Mode == CustomWindow {
			a.Compare = &CompareArg{Window: &DateRange{Start: c.Start.Format(time.DateOnly), End: c.End.Format(time.DateOnly)}}
		}
	}
	a.AttributionWindow = q.AttributionWindow
	if q.TokenBudget > 0 {
		b := q.TokenBudget
		a.TokenBudget = &b
	}
	return a
}

// MarshalJSON writes the query as its ready-to-run arguments. It has a value
// receiver so that a Query held by value (in a _meta struct) is written the same.
// Like every answer's JSON it does not escape HTML: "Harbor & Pine" stays
// readable and costs fewer tokens than "Harbor \u0026 Pine".
func (q Query) MarshalJSON() ([]byte, error) { return fit.MarshalText(q.Args()) }

// TimeColumn is the name of the result's time column ("" at total grain).
func (q *Query) TimeColumn() string { return q.Grain.TimeColumn() }

// symbols are the operators as a reader writes them.
var symbols = map[Operator]string{
	Equals: "=", NotEquals: "≠", GreaterThan: ">", GreaterThanOrEqual: "≥", LessThan: "<", LessThanOrEqual: "≤",
	In: "in", NotIn: "not in", Between: "between", Contains: "contains", NotContains: "does not contain",
	StartsWith: "starts with",
}

// String is the filter as a reader writes it: `spend > 30`, `ctr between 1 and
// 2`, `campaign_name = "Brand"`, `clicks in (1, 2, 3, … 40 values)` — short
// enough for any warning (a list shows its first 3 values and its length).
func (f Filter) String() string {
	vals := make([]string, len(f.Values))
	for i, v := range f.Values {
		switch x := v.(type) {
		case string:
			vals[i] = strconv.Quote(x)
		case float64:
			vals[i] = strconv.FormatFloat(x, 'f', -1, 64) // 10000000, never 1e+07
		default:
			vals[i] = fmt.Sprint(v)
		}
	}
	switch f.Operator {
	case Between:
		return fmt.Sprintf("%s between %s and %s", f.Field, vals[0], vals[1])
	case In, NotIn:
		if len(vals) > 3 {
			vals = append(vals[:3], fmt.Sprintf("… %d values", len(f.Values)))
		}
		return fmt.Sprintf("%s %s (%s)", f.Field, symbols[f.Operator], strings.Join(vals, ", "))
	}
	return fmt.Sprintf("%s %s %s", f.Field, symbols[f.Operator], strings.Join(vals, ", "))
}

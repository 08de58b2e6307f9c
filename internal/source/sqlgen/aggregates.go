package sqlgen

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Aggregates computes, in one statement, what fit needs to summarize q's
// result without reading its rows (fit.Aggregates): for each dimension and the
// time column, each distinct value per currency with its rows; for each metric
// column, per currency, its values, extremes and sum. The rows fit's step 1
// removes are left out, as the pipeline removes them before summarizing.
//
// The statement is a UNION ALL of one grouping per dimension (and one per
// currency for the metrics) over the query's own rows (Plan.Rows), computed
// once where the engine materializes a WITH subquery, else once per branch.
// Money sums add the integer micros, exactly; a value's sum of the main
// metric is its metric sum, so the ranking by it needs nothing more.
func (s Sized) Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error) {
	ad, ok := s.Dialect.(aggregateDialect)
	if !ok {
		return nil, fmt.Errorf("%s: no aggregate statements for this engine", s.Dialect.Name())
	}
	b := &builder{d: s.Dialect}
	p, err := compileWith(q, s.Dialect, b, nil)
	if err != nil {
		return nil, err
	}
	if p.Rows == "" {
		return nil, fmt.Errorf("%s: aggregates of a query with a limit", s.Dialect.Name())
	}
	lay := newAggregateLayout(p, s.Dialect, q.Grain)
	rowsFrom := func() (string, error) {
		if ad.Materialize() {
			return "r", nil
		}
		pi, err := compileWith(q, s.Dialect, b, nil)
		if err != nil {
			return "", err
		}
		return "(\n" + pi.Rows + "\n) AS r", nil
	}
	var branches []string
	with := ""
	if ad.Materialize() {
		with = "WITH r AS MATERIALIZED (\n" + p.Rows + "\n)\n"
	} else {
		b.args = nil // each branch binds its own copy of the parameters
	}
	for k, key := range lay.keys() {
		from, err := rowsFrom()
		if err != nil {
			return nil, err
		}
		branches = append(branches, lay.branch(k, key, from))
	}
	var out *fit.Aggregates
	err = s.run(ctx, with+strings.Join(branches, "\nUNION ALL\n"), b.args, func(r Rows) error {
		out, err = lay.read(r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: aggregates: %w", s.Dialect.Name(), err)
	}
	return out, nil
}

// aggregateLayout is the columns of the aggregate statement's rows: the
// branch (k), the value and currency, the row count, whether any metric is
// non-zero (nz) or has a value (nn), then per metric column its count of
// values, min, max and sum.
type aggregateLayout struct {
	p        *Plan
	d        aggregateDialect
	currency string // the currency column's expression, "" when none
	dims     []int  // Columns indexes of the dimensions and time column
	metrics  []int  // Columns indexes of the metrics, hidden ones too
	period   string // the time column as text
	null     string // a NULL double
}

func newAggregateLayout(p *Plan, d Dialect, grain fit.Grain) *aggregateLayout {
	l := &aggregateLayout{p: p, d: d.(aggregateDialect), period: d.FormatPeriod(grain, "c0"), null: d.Double("NULL")}
	for i, c := range p.Columns {
		if c.Role == fit.RoleMetric {
			l.metrics = append(l.metrics, i)
			if c.Money && c.CurrencyColumn != "" && l.currency == "" {
				if j := columnIndex(p.Columns, c.CurrencyColumn); j >= 0 {
					l.currency = fmt.Sprintf("coalesce(c%d, '')", j)
				}
			}
		} else {
			l.dims = append(l.dims, i)
		}
	}
	return l
}

func columnIndex(cols []*fit.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// branchKey is a branch's value: its text, and what it is grouped by.
type branchKey struct{ value, group string }

// keys are the branches' values: one per dimension (the time column grouped
// by its date, cheaper than by its label), then none for the metrics' branch
// (grouped by currency alone).
func (l *aggregateLayout) keys() []branchKey {
	var out []branchKey
	for _, i := range l.dims {
		if l.p.Columns[i].Role == fit.RoleTime { // Plan.Rows has the period's date
			out = append(out, branchKey{l.period, fmt.Sprintf("c%d", i)})
			continue
		}
		e := fmt.Sprintf("coalesce(c%d, '')", i)
		out = append(out, branchKey{e, e})
	}
	return append(out, branchKey{})
}

func (l *aggregateLayout) branch(k int, key branchKey, from string) string {
	cur := l.currency
	if cur == "" {
		cur = "''"
	}
	value := key.value
	if value == "" {
		value = "''"
	}
	sel := []string{fmt.Sprintf("'%d' AS k", k), value + " AS v", cur + " AS cur", "COUNT(*) AS n"}
	var nz, nn []string
	for _, i := range l.metrics {
		if !l.p.Columns[i].Hidden {
			nz = append(nz, fmt.Sprintf("c%d <> 0", i))
			nn = append(nn, fmt.Sprintf("c%d IS NOT NULL", i))
		}
	}
	flag := func(conds []string) string {
		if len(conds) == 0 {
			return "0"
		}
		return "MAX(CASE WHEN " + strings.Join(conds, " OR ") + " THEN 1 ELSE 0 END)"
	}
	sel = append(sel, flag(nz)+" AS nz", flag(nn)+" AS nn")
	for _, i := range l.metrics {
		c := fmt.Sprintf("c%d", i)
		sum := "SUM(" + c + ")"
		if l.exact(i) {
			sum = l.d.Int64("SUM(" + l.d.Int64("round("+c+" * 1000000)") + ")")
		}
		col := l.p.Columns[i]
		ranks := col.Aggregation == fit.Sum && !col.Hidden // a value's rank needs its count and sum
		switch {
		case key.group == "" || !l.d.TypedNulls():
			sel = append(sel, "COUNT("+c+")", "MIN("+c+")", "MAX("+c+")", sum)
		case ranks:
			sel = append(sel, "COUNT("+c+")", l.null, l.null, sum)
		default: // a dimension's branch needs nothing else of it
			noSum := l.null
			if l.exact(i) {
				noSum = l.d.Int64("NULL")
			}
			sel = append(sel, "0", l.null, l.null, noSum)
		}
	}
	var group []string
	if key.group != "" {
		group = append(group, key.group)
	}
	if l.currency != "" {
		group = append(group, l.currency)
	}
	g := ""
	if len(group) > 0 {
		g = "\nGROUP BY " + strings.Join(group, ", ")
	}
	return fmt.Sprintf("SELECT %s\nFROM %s\nWHERE e_ = 0%s", strings.Join(sel, ", "), from, g)
}

// exact says metric column i is money summed: its sum adds integer micros.
func (l *aggregateLayout) exact(i int) bool {
	c := l.p.Columns[i]
	return c.Money && c.Aggregation == fit.Sum
}

func (l *aggregateLayout) read(r Rows) (*fit.Aggregates, error) {
	a := &fit.Aggregates{Values: map[string][]fit.ValueAggregate{}, Metrics: map[string][]fit.MetricAggregate{}}
	for _, i := range l.metrics {
		if c := l.p.Columns[i]; c.Money && c.CurrencyColumn != "" && l.currency != "" {
			a.CurrencyColumn = c.CurrencyColumn
			break
		}
	}
	type metricCols struct {
		count    int64
		min, max sql.NullFloat64
		sum      sql.NullFloat64
		exact    sql.NullInt64
	}
	var k, v, cur string
	var n, nz, nn int64
	ms := make([]metricCols, len(l.metrics))
	dest := []any{&k, &v, &cur, &n, &nz, &nn}
	for j, i := range l.metrics {
		dest = append(dest, &ms[j].count, &ms[j].min, &ms[j].max)
		if l.exact(i) {
			dest = append(dest, &ms[j].exact)
		} else {
			dest = append(dest, &ms[j].sum)
		}
	}
	sumOf := func(j int) float64 {
		if l.exact(l.metrics[j]) {
			return float64(ms[j].exact.Int64) / 1e6
		}
		return ms[j].sum.Float64
	}
	for r.Next() {
		if err := r.Scan(dest...); err != nil {
			return nil, err
		}
		if n == 0 {
			continue // an empty grouping's single row
		}
		branch, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("branch %q: %w", k, err)
		}
		if branch < len(l.dims) {
			col := l.p.Columns[l.dims[branch]]
			va := fit.ValueAggregate{Value: v, Currency: cur, Rows: int(n), NonZero: nz == 1, Valued: nn == 1}
			va.MainSums = map[string]fit.MainSum{}
			for j, i := range l.metrics {
				if c := l.p.Columns[i]; c.Aggregation == fit.Sum && !c.Hidden {
					va.MainSums[c.Name] = fit.MainSum{Rows: int(ms[j].count), Sum: sumOf(j)}
				}
			}
			a.Values[col.Name] = append(a.Values[col.Name], va)
			continue
		}
		a.Rows += int(n)
		for j, i := range l.metrics {
			c := l.p.Columns[i]
			a.Metrics[c.Name] = append(a.Metrics[c.Name], fit.MetricAggregate{Currency: cur,
				Values: int(ms[j].count), Empty: int(n - ms[j].count), Min: ms[j].min.Float64, Max: ms[j].max.Float64, Sum: sumOf(j)})
		}
	}
	return a, r.Err()
}

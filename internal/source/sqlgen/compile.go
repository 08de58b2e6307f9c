package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Every identifier that reaches SQL comes from the tables below, keyed by catalog
// name; every value is a ? parameter. A name that is not in these tables cannot be
// turned into SQL at all.

// dimensionExpr is the SQL expression of each dimension over the joined tables
// (f = facts, a = accounts, c = campaigns, s = adsets, d = ads).
var dimensionExpr = map[string]string{
	"platform":           "a.platform",
	"account_id":         "f.account_id",
	"account_name":       "a.account_name",
	"currency":           "a.currency",
	"campaign_id":        "f.campaign_id",
	"campaign_name":      "c.campaign_name",
	"campaign_objective": "c.campaign_objective",
	"campaign_status":    "c.campaign_status",
	"adset_id":           "f.adset_id",
	"adset_name":         "s.adset_name",
	"ad_id":              "f.ad_id",
	"ad_name":            "d.ad_name",
	"country":            "f.country",
	"device":             "f.device",
	"publisher_platform": "f.publisher_platform",
}

// additiveExpr is the summed column of each additive metric, and whether it
// is money. Money is stored in integer micros: the sum is exact, and one
// division turns it into currency units.
var additiveExpr = map[string]struct {
	column string
	money  bool
}{
	"spend":            {"f.spend_micros", true},
	"impressions":      {"f.impressions", false},
	"clicks":           {"f.clicks", false},
	"link_clicks":      {"f.link_clicks", false},
	"conversions":      {"f.conversions", false},
	"conversion_value": {"f.conversion_value_micros", true},
	"video_views":      {"f.video_views", false},
}

// additive is the aggregate of an additive metric, as a double.
func additive(d Dialect, name string) string {
	a := additiveExpr[name]
	e := d.Double("SUM(" + a.column + ")")
	if a.money {
		e += " / 1000000"
	}
	return e
}

// joins are the LEFT JOINs a table alias needs; LEFT so that fact rows whose
// campaign, ad set or ad is missing (API artifacts) are kept, with empty names.
var joins = map[string]string{
	"a": "JOIN accounts a ON a.account_id = f.account_id",
	"c": "LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id",
	"s": "LEFT JOIN adsets s ON s.adset_id = f.adset_id",
	"d": "LEFT JOIN ads d ON d.ad_id = f.ad_id",
}

// Plan is a query compiled to SQL, with what is needed to read its rows back.
type Plan struct {
	SQL  string
	Args []any
	// Columns of the result in SELECT order (with a dialect that has
	// WindowCount, the last SELECT column is the row count before the limit,
	// not listed here).
	Columns []*fit.Column
	Notices []fit.Notice
	// ReaderLimit is the limit ReadTable applies when the SQL cannot (no
	// window functions to count the rows before it); 0: none. ReaderCounts
	// says ReadTable counts the rows itself.
	ReaderLimit  int
	ReaderCounts bool
	// ReaderEmptyFlag says the row has one more column after Columns (before
	// the count): 1 when every dimension the caller asked for is empty. Such
	// rows take no place in the limit; ReadTable keeps them all, for fit's step
	// 1 to remove and report. ReaderPartition, when ≥ 0, is the index in
	// Columns of the column within each of whose values the limit applies
	// (currency, when money is ranked over several currencies).
	ReaderEmptyFlag bool
	ReaderPartition int
}

// builder accumulates SQL text and parameters.
type builder struct {
	d    Dialect
	args []any
}

func (b *builder) param(v any) string {
	b.args = append(b.args, v)
	return b.d.Placeholder(len(b.args))
}

func (b *builder) params(vs []any) string {
	ps := make([]string, len(vs))
	for i, v := range vs {
		ps[i] = b.param(v)
	}
	return strings.Join(ps, ", ")
}

// compile turns a normalized query into one parameterized SQL statement:
//
//	agg:   facts grouped by period and dimensions, dimension filters in WHERE,
//	       additive sums (and reach joined at its stored level and grain);
//	calc:  metrics computed from the sums (ratios from summed parts);
//	final: metric filters on the computed rows (HAVING semantics), the row count
//	       before any limit, sort and limit.
func Compile(q *query.Query, d Dialect) (*Plan, error) {
	p := &Plan{}
	b := &builder{d: d}

	// Which additive sums are needed: requested metrics, ratio parts, metrics
	// used only in filters.
	var sums []string
	need := func(name string) {
		if _, ok := additiveExpr[name]; ok && !slices.Contains(sums, name) {
			sums = append(sums, name)
		}
	}
	used := slices.Clone(q.Metrics)
	for _, f := range q.Filters {
		if f.Metric && !slices.Contains(used, f.Field) {
			used = append(used, f.Field)
		}
	}
	for _, m := range used {
		f, ok := catalog.Lookup(m)
		if !ok || !f.IsMetric() {
			return nil, fmt.Errorf("%s: %q is not a catalog metric", d.Name(), m)
		}
		switch f.Aggregation {
		case catalog.Sum:
			need(m)
		case catalog.Ratio, catalog.NonAdditive:
			need(f.Numerator)
			need(f.Denominator)
		}
	}

	reach, reachNotice := planReach(q, used)
	if reachNotice != nil {
		p.Notices = append(p.Notices, *reachNotice)
		if err := unavailableFilters(q); err != nil {
			return nil, err
		}
	}
	if reach != nil {
		p.Notices = append(p.Notices, reach.notices(q)...)
	}

	// Period expression.
	var periodExpr string
	switch q.Grain {
	case fit.Daily:
		periodExpr = "f.date"
	case fit.Weekly, fit.Monthly:
		periodExpr = d.Truncate(q.Grain, "f.date")
	case fit.Total:
	default:
		return nil, fmt.Errorf("%s: unknown grain %q", d.Name(), q.Grain)
	}

	// Joins needed by dimensions and dimension filters.
	aliases := map[string]bool{}
	useDim := func(name string) (string, error) {
		e, ok := dimensionExpr[name]
		if !ok {
			return "", fmt.Errorf("%s: %q is not a catalog dimension", d.Name(), name)
		}
		if d.Layout() == Denormalized {
			return "f." + name, nil
		}
		aliases[e[:1]] = true
		return e, nil
	}

	var selects, groups []string
	if periodExpr != "" {
		selects = append(selects, periodExpr+" AS p")
		groups = append(groups, "p")
	}
	for i, dim := range q.Dimensions {
		e, err := useDim(dim)
		if err != nil {
			return nil, err
		}
		selects = append(selects, fmt.Sprintf("%s AS d%d", e, i))
		groups = append(groups, fmt.Sprintf("d%d", i))
	}
	for i, m := range sums {
		selects = append(selects, fmt.Sprintf("%s AS s%d", additive(d, m), i))
	}
	selects = append(selects, "COUNT(*) AS fact_rows") // never an empty SELECT list

	var where []string
	where = append(where, "f.account_id IN ("+b.params(anySlice(q.AccountIDs()))+")")
	where = append(where, "f.date BETWEEN "+d.Date(b.param(q.Start))+" AND "+d.Date(b.param(q.End)))
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		e, err := useDim(f.Field)
		if err != nil {
			return nil, err
		}
		where = append(where, textPredicate(b, e, f))
	}

	from := "facts f"
	for _, al := range []string{"a", "c", "s", "d"} {
		if aliases[al] {
			from += "\n  " + joins[al]
		}
	}
	groupBy := ""
	if len(groups) > 0 {
		groupBy = "\n  GROUP BY " + strings.Join(groups, ", ")
	}
	agg := fmt.Sprintf("SELECT %s\n  FROM %s\n  WHERE %s%s",
		strings.Join(selects, ", "), from, strings.Join(where, "\n    AND "), groupBy)

	// calc: computed metrics over the sums.
	sumRef := func(name string) string { return fmt.Sprintf("g.s%d", slices.Index(sums, name)) }
	var calc []string
	keyCols := slices.Clone(groups)
	for _, k := range keyCols {
		calc = append(calc, "g."+k)
	}
	metricRef := map[string]string{}
	for _, m := range used {
		f := catalog.MustLookup(m)
		var e string
		switch {
		case f.Aggregation == catalog.Sum:
			e = sumRef(m)
		case f.Aggregation == catalog.Ratio:
			e = fmt.Sprintf("CASE WHEN %[2]s <> 0 THEN %[1]s / %[2]s * %[3]g END", sumRef(f.Numerator), sumRef(f.Denominator), f.Scale)
		case m == "reach":
			e = "r.reach"
		case m == "frequency":
			e = fmt.Sprintf("CASE WHEN r.reach > 0 THEN %s / r.reach END", sumRef("impressions"))
		}
		if f.Aggregation == catalog.NonAdditive && reach == nil {
			if !keptEmpty(q, m) {
				continue // left out: not available for this query
			}
			e = emptyMetric(d)
		}
		metricRef[m] = fmt.Sprintf("m%d", len(metricRef))
		calc = append(calc, fmt.Sprintf("%s AS %s", e, metricRef[m]))
	}
	p.Notices = append(p.Notices, notReported(q, reach != nil)...)
	for i, m := range sums {
		calc = append(calc, fmt.Sprintf("g.s%d AS h_%s", i, m))
	}
	// Subqueries rather than CTEs: the same SQL runs on engines without WITH
	// (ClickHouse 18).
	calcFrom := "(" + agg + ") AS g"
	if reach != nil {
		rsql, keys := reach.sql(b, q, groups)
		calcFrom = d.JoinReach(agg, rsql, keys)
	}
	calcSQL := fmt.Sprintf("SELECT %s\n  FROM %s", strings.Join(calc, ", "), calcFrom)
	if len(groups) == 0 {
		calcSQL += "\n  WHERE " + noFactsNoRow()
	}

	// final: metric filters, count before limit, order, limit.
	var having []string
	for _, f := range q.Filters {
		if !f.Metric {
			continue
		}
		ref, ok := metricRef[f.Field]
		if !ok {
			return nil, &query.Error{Problems: []query.Problem{{Field: "filters", Value: f.Field,
				Problem: "cannot filter on a metric that is not available for this query (see the notice on " + f.Field + ")",
				Fix:     "remove the filter or ask at a grain where the metric is available"}}}
		}
		having = append(having, numberPredicate(b, ref, f))
	}
	var out []string
	tc := q.Grain.TimeColumn()
	if tc != "" {
		out = append(out, d.FormatPeriod(q.Grain, "p"))
		p.Columns = append(p.Columns, &fit.Column{Name: tc, Role: fit.RoleTime})
	}
	for i, dim := range q.Dimensions {
		out = append(out, fmt.Sprintf("d%d", i))
		// The currency column says which unit money is in: never a breakdown
		// step 1 judges.
		p.Columns = append(p.Columns, &fit.Column{Name: dim, Role: fit.RoleDimension, Unit: dim == "currency"})
	}
	currencyColumn, currency := currencyOf(q)
	addMetric := func(m string, ref string, hidden bool) {
		f := catalog.MustLookup(m)
		c := &fit.Column{Name: m, Role: fit.RoleMetric, Hidden: hidden}
		switch f.Aggregation {
		case catalog.Sum:
			c.Aggregation = fit.Sum
		case catalog.Ratio:
			c.Aggregation, c.Numerator, c.Denominator, c.Scale = fit.Ratio, f.Numerator, f.Denominator, f.Scale
		case catalog.NonAdditive:
			c.Aggregation, c.Numerator, c.Denominator, c.Scale = fit.NonAdditive, f.Numerator, f.Denominator, f.Scale
		}
		if f.Unit == catalog.Money {
			c.Money, c.CurrencyColumn, c.Currency = true, currencyColumn, currency
		}
		out = append(out, ref)
		p.Columns = append(p.Columns, c)
	}
	for _, m := range q.Metrics {
		if ref, ok := metricRef[m]; ok {
			addMetric(m, ref, false)
		}
	}
	// Hidden parts of requested ratios, for exact roll-ups downstream.
	for _, m := range q.Metrics {
		f := catalog.MustLookup(m)
		if f.Aggregation != catalog.Ratio {
			continue
		}
		for _, part := range []string{f.Numerator, f.Denominator} {
			if !slices.Contains(q.Metrics, part) && p.column(part) == nil {
				addMetric(part, "h_"+part, true)
			}
		}
	}
	keys := orderBy(d, q, metricRef)
	havingSQL := ""
	if len(having) > 0 {
		havingSQL = "\nWHERE " + strings.Join(having, "\n  AND ")
	}
	var final string
	if q.Limit > 0 {
		final = limitSQL(b, q, p, out, calcSQL, havingSQL, keys)
	} else {
		if d.WindowCount() {
			out = append(out, "COUNT(*) OVER () AS n_before_limit")
		} else {
			p.ReaderCounts = true
		}
		final = fmt.Sprintf("SELECT %s\nFROM (\n  %s\n) AS calc%s\nORDER BY %s", strings.Join(out, ", "), calcSQL, havingSQL, strings.Join(keys, ", "))
	}
	p.SQL = final
	p.Args = b.args
	return p, nil
}

func (p *Plan) column(name string) *fit.Column {
	for _, c := range p.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// orderBy is the explicit sort, then time and dimensions ascending so that the
// order of rows is always deterministic.
func orderBy(d Dialect, q *query.Query, metricRef map[string]string) []string {
	var keys []string
	seen := map[string]bool{}
	ref := func(field string) string {
		// A sort on the time column holds at any grain: a query re-asked at a
		// coarser grain keeps the caller's sort on "week" as a sort on "month".
		if q.Grain != fit.Total && fit.IsTimeColumn(field) {
			return "p"
		}
		if i := slices.Index(q.Dimensions, field); i >= 0 {
			return d.TextOrder(fmt.Sprintf("d%d", i))
		}
		return metricRef[field]
	}
	for _, s := range q.Sort {
		r := ref(s.Field)
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		dir := "ASC"
		if s.Desc {
			dir = "DESC"
		}
		keys = append(keys, r+" "+dir+" NULLS LAST")
	}
	var rest []string
	if q.Grain != fit.Total {
		rest = append(rest, "p")
	}
	for i := range q.Dimensions {
		rest = append(rest, d.TextOrder(fmt.Sprintf("d%d", i)))
	}
	for _, r := range rest {
		if !seen[r] {
			keys = append(keys, r+" ASC NULLS LAST")
		}
	}
	if len(keys) == 0 {
		keys = append(keys, "1")
	}
	return keys
}

// currencyOf says where a money column's currency comes from: the currency
// dimension when present, else the single currency of the queried accounts.
func currencyOf(q *query.Query) (column, currency string) {
	if slices.Contains(q.Dimensions, "currency") {
		return "currency", ""
	}
	for _, a := range q.Accounts {
		if currency == "" {
			currency = a.Currency
		} else if currency != a.Currency {
			return "", "" // mixed and no column: normalization prevents this for money
		}
	}
	return "", currency
}

// textPredicate is a case-insensitive dimension filter; an empty value (NULL) is
// the empty string, so NOT_EQUALS and NOT_CONTAINS keep rows without a value.
func textPredicate(b *builder, expr string, f query.Filter) string {
	col := b.d.Lower("coalesce(" + expr + ", '')")
	switch f.Operator {
	case query.Equals:
		return col + " = " + b.d.Lower(b.param(f.Values[0]))
	case query.NotEquals:
		return col + " <> " + b.d.Lower(b.param(f.Values[0]))
	case query.Contains:
		return b.d.Contains(col, b.d.Lower(b.param(f.Values[0])))
	case query.NotContains:
		return "NOT " + b.d.Contains(col, b.d.Lower(b.param(f.Values[0])))
	case query.StartsWith:
		return b.d.StartsWith(col, b.d.Lower(b.param(f.Values[0])))
	case query.In, query.NotIn:
		ps := make([]string, len(f.Values))
		for i, v := range f.Values {
			ps[i] = b.d.Lower(b.param(v))
		}
		not := ""
		if f.Operator == query.NotIn {
			not = "NOT "
		}
		return col + " " + not + "IN (" + strings.Join(ps, ", ") + ")"
	}
	return "FALSE" // unreachable: normalization allows only text operators here
}

// numberPredicate is a metric filter on an aggregated row. An empty metric (a
// ratio over zero) matches no filter.
func numberPredicate(b *builder, ref string, f query.Filter) string {
	switch f.Operator {
	case query.Equals:
		return ref + " = " + b.param(f.Values[0])
	case query.NotEquals:
		return ref + " <> " + b.param(f.Values[0])
	case query.GreaterThan:
		return ref + " > " + b.param(f.Values[0])
	case query.GreaterThanOrEqual:
		return ref + " >= " + b.param(f.Values[0])
	case query.LessThan:
		return ref + " < " + b.param(f.Values[0])
	case query.LessThanOrEqual:
		return ref + " <= " + b.param(f.Values[0])
	case query.Between:
		return ref + " BETWEEN " + b.param(f.Values[0]) + " AND " + b.param(f.Values[1])
	case query.In:
		return ref + " IN (" + b.params(f.Values) + ")"
	case query.NotIn:
		return ref + " NOT IN (" + b.params(f.Values) + ")"
	}
	return "FALSE"
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

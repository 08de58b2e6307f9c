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
	"attribution_window": "a.attribution_window",
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
	"age":                "f.age",
	"gender":             "f.gender",
	"placement":          "f.placement",
	"conversion_action":  "f.conversion_action",
}

// additive is the aggregate of an additive metric, as a double: the sum of the
// column the catalog stores it in. Money is stored in integer micros: the sum
// is exact, and one division turns it into currency units.
func additive(d Dialect, name string) string {
	st := catalog.MustLookup(name).Storage
	e := d.Double("SUM(f." + st.Column + ")")
	if st.Kind == catalog.Micros {
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
	// Rows, for a query without a limit, is the result's rows unordered, as
	// a subquery: Columns as c0, c1, … and e_, fit's empty flag (1 when every
	// dimension step 1 judges is empty); for aggregates over the result
	// computed where its rows are (large.go). Its time column (c0, when
	// Columns has one) is the period's first DATE, not yet formatted as
	// text (FormatPeriod): grouping by a date is cheaper.
	Rows string
	// Groups, for a query without a metric filter, is its grouping stage,
	// one row per result row where fact_rows > 0: counted without computing
	// a metric (large.go).
	Groups string
	// groupsArgs is how many of the builder's parameters Groups uses (those
	// of the plans compiled before it, then its own).
	groupsArgs int
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

// Compile turns a normalized query into one parameterized SQL statement:
//
//	agg:   facts grouped by period and dimensions, dimension filters in WHERE,
//	       additive sums (and reach joined at its stored level and grain);
//	calc:  metrics computed from the sums (ratios from summed parts);
//	final: metric filters on the computed rows (HAVING semantics), the row count
//	       before any limit, sort and limit.
func Compile(q *query.Query, d Dialect) (*Plan, error) {
	return compileWith(q, d, &builder{d: d}, nil)
}

// compileWith compiles q with parameters numbered after those b holds (so
// several compilations make one statement); onlyEmpty, when not empty, keeps
// only the rows whose dimensions of those names are all empty (the rows fit's
// step 1 removes), filtered before grouping.
func compileWith(q *query.Query, d Dialect, b *builder, onlyEmpty []string) (*Plan, error) {
	if err := q.StoredWindowError(); err != nil {
		return nil, err // a warehouse holds one window per account
	}
	c := &compilation{q: q, d: d, p: &Plan{}, b: b, onlyEmpty: onlyEmpty}
	if err := c.useMetrics(); err != nil {
		return nil, err
	}
	if err := c.useReach(); err != nil {
		return nil, err
	}
	agg, err := c.aggregate()
	if err != nil {
		return nil, err
	}
	c.agg = agg
	c.p.groupsArgs = len(c.b.args)
	calcSQL := c.calculate(agg)
	if err := c.final(calcSQL); err != nil {
		return nil, err
	}
	c.p.Args = c.b.args
	return c.p, nil
}

// compilation is one query's compilation, stage by stage.
type compilation struct {
	q *query.Query
	d Dialect
	p *Plan
	b *builder

	// used are the metrics asked for, then those used only in filters; sums
	// the additive sums they need (requested metrics and ratio parts).
	used, sums []string
	reach      *reachPlan
	// aliases are the joined tables the dimensions need; groups the agg
	// stage's grouping columns (p, d0, d1, …).
	aliases map[string]bool
	groups  []string
	// metricRef is each computed metric's column in the calc stage (m0, m1, …).
	metricRef map[string]string
	// onlyEmpty: see compileWith.
	onlyEmpty []string
	// agg is the grouping stage's SQL.
	agg string
	// unattributed is the condition of a delivery row read beside a set kept
	// per campaign (see breakdownRows); "" when the query reads none.
	unattributed string
}

// useMetrics finds the metrics used and the additive sums they need.
func (c *compilation) useMetrics() error {
	need := func(name string) {
		if f, ok := catalog.Lookup(name); ok && f.Storage != nil && !slices.Contains(c.sums, name) {
			c.sums = append(c.sums, name)
		}
	}
	c.used = slices.Clone(c.q.Metrics)
	for _, f := range c.q.Filters {
		if f.Metric && !slices.Contains(c.used, f.Field) {
			c.used = append(c.used, f.Field)
		}
	}
	for _, m := range c.used {
		f, ok := catalog.Lookup(m)
		if !ok || !f.IsMetric() {
			return fmt.Errorf("%s: %q is not a catalog metric", c.d.Name(), m)
		}
		switch f.Aggregation {
		case catalog.Sum:
			need(m)
		case catalog.Ratio, catalog.NonAdditive:
			need(f.Numerator)
			need(f.Denominator)
		}
	}
	return nil
}

// useReach plans the stored reach the query reads, and the notices when it
// cannot (a filter on an unavailable metric is then an error).
func (c *compilation) useReach() error {
	reach, reachNotice := planReach(c.q, c.used)
	if reachNotice != nil {
		c.p.Notices = append(c.p.Notices, *reachNotice)
		if err := unavailableFilters(c.q); err != nil {
			return err
		}
	}
	if reach != nil {
		c.p.Notices = append(c.p.Notices, reach.notices(c.q)...)
	}
	c.reach = reach
	return nil
}

// dimension is a dimension's SQL expression, noting the join it needs.
func (c *compilation) dimension(name string) (string, error) {
	e, ok := dimensionExpr[name]
	if !ok {
		return "", fmt.Errorf("%s: %q is not a catalog dimension", c.d.Name(), name)
	}
	if c.d.Layout() == Denormalized {
		e = "f." + name
	} else {
		c.aliases[e[:1]] = true
	}
	if c.unattributed != "" && catalog.IsBreakdown(name) {
		// Delivery no campaign holds, read beside a per-campaign set: it has
		// no value of the set's breakdowns (its own country, device or
		// publisher_platform are not the set's).
		e = "CASE WHEN " + c.unattributed + " THEN NULL ELSE " + e + " END"
	}
	return namedWindow(name, e), nil
}

// namedWindow is the expression e of dimension name, with an account whose
// source does not say its attribution window read as "unknown": never an
// empty value, which step 1 would take for an artifact.
func namedWindow(name, e string) string {
	if name != "attribution_window" {
		return e
	}
	return "CASE WHEN " + e + " IS NULL OR " + e + " = '' THEN '" + query.UnknownWindow + "' ELSE " + e + " END"
}

// periodExpr is the expression of the query's period ("" at total grain).
func (c *compilation) periodExpr() (string, error) {
	switch c.q.Grain {
	case fit.Daily:
		return "f.date", nil
	case fit.Weekly, fit.Monthly, fit.Quarterly:
		return c.d.Truncate(c.q.Grain, "f.date"), nil
	case fit.Total:
		return "", nil
	}
	return "", fmt.Errorf("%s: unknown grain %q", c.d.Name(), c.q.Grain)
}

// aggregate is the agg stage: facts grouped by period and dimensions, with the
// dimension filters and the additive sums.
func (c *compilation) aggregate() (string, error) {
	q, d, b := c.q, c.d, c.b
	periodExpr, err := c.periodExpr()
	if err != nil {
		return "", err
	}
	c.aliases = map[string]bool{}
	c.unattributed = c.unattributedRows()
	var selects []string
	if periodExpr != "" {
		selects = append(selects, periodExpr+" AS p")
		c.groups = append(c.groups, "p")
	}
	for i, dim := range q.Dimensions {
		e, err := c.dimension(dim)
		if err != nil {
			return "", err
		}
		selects = append(selects, fmt.Sprintf("%s AS d%d", e, i))
		c.groups = append(c.groups, fmt.Sprintf("d%d", i))
	}
	for i, m := range c.sums {
		selects = append(selects, fmt.Sprintf("%s AS s%d", additive(d, m), i))
	}
	selects = append(selects, "COUNT(*) AS fact_rows") // never an empty SELECT list

	var where []string
	where = append(where, "f.account_id IN ("+b.params(anySlice(q.AccountIDs()))+")")
	where = append(where, "f.date BETWEEN "+d.Date(b.param(q.Start))+" AND "+d.Date(b.param(q.End)))
	// One breakdown set per platform (catalog.BreakdownSet): the delivery rows,
	// or the set holding the query's breakdowns, never two that would count
	// the same delivery twice.
	where = append(where, c.breakdownRows())
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		e, err := c.dimension(f.Field)
		if err != nil {
			return "", err
		}
		where = append(where, textPredicate(b, e, f))
	}
	for _, dim := range c.onlyEmpty {
		e, err := c.dimension(dim)
		if err != nil {
			return "", err
		}
		where = append(where, "coalesce("+e+", '') = ''")
	}

	from := "facts f"
	for _, al := range []string{"a", "c", "s", "d"} {
		if c.aliases[al] {
			from += "\n  " + joins[al]
		}
	}
	groupBy := ""
	if len(c.groups) > 0 {
		groupBy = "\n  GROUP BY " + strings.Join(c.groups, ", ")
	}
	return fmt.Sprintf("SELECT %s\n  FROM %s\n  WHERE %s%s",
		strings.Join(selects, ", "), from, strings.Join(where, "\n    AND "), groupBy), nil
}

// unattributedRows is the condition of the delivery rows a query reads beside
// the sets it reads that are kept per campaign or ad group
// (catalog.BreakdownSet.PerObjectReports): such a set is made of campaigns'
// or ad groups' reports, so delivery that no campaign holds is in none of
// its rows. Those delivery rows are read with the set,
// their breakdowns empty, so that the answer still counts them — in a row
// with no age (or placement, or conversion_action), which step 1 removes
// and reports when it has no other dimension — and the rows reconcile with
// the delivery totals. "" when the query reads no such set. A platform that
// reads the delivery rows themselves keeps them as they are: the condition
// names the platforms whose set is per campaign when the query has both.
func (c *compilation) unattributedRows() string {
	var perCampaign []string
	delivery := false
	for _, p := range c.q.AccountPlatforms() {
		s, ok := c.q.BreakdownSet(p)
		switch {
		case !ok || s.Key == catalog.Delivery:
			delivery = true
		case s.PerObjectReports():
			perCampaign = append(perCampaign, "'"+p+"'") // catalog constants, not input
		}
	}
	if len(perCampaign) == 0 {
		return ""
	}
	cond := "f.breakdown = '" + catalog.Delivery + "'"
	if delivery {
		cond += " AND " + c.platformIn(perCampaign)
	}
	return cond
}

// platformIn is the condition that a fact's account is of one of platforms
// (quoted catalog constants, not input).
func (c *compilation) platformIn(platforms []string) string {
	platform := "f.platform"
	if c.d.Layout() != Denormalized {
		platform = dimensionExpr["platform"]
		c.aliases[platform[:1]] = true
	}
	return platform + " IN (" + strings.Join(platforms, ", ") + ")"
}

// setRows is the condition of the rows of the sets the query reads
// (query.Query.SetReads): a set another platform of the query stores but
// does not read is read for the platforms that read it only.
func (c *compilation) setRows() string {
	var keys []any
	var restricted []query.SetRead
	for _, r := range c.q.SetReads() {
		if r.Platforms == nil {
			keys = append(keys, r.Key)
		} else {
			restricted = append(restricted, r)
		}
	}
	// Parameters in the order they appear: some dialects number them by place.
	var conds []string
	if len(keys) > 0 {
		conds = append(conds, "f.breakdown IN ("+c.b.params(keys)+")")
	}
	for _, r := range restricted {
		var quoted []string
		for _, p := range r.Platforms {
			quoted = append(quoted, "'"+p+"'")
		}
		conds = append(conds, "f.breakdown = "+c.b.param(r.Key)+" AND "+c.platformIn(quoted))
	}
	if len(restricted) == 0 {
		return conds[0]
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// breakdownRows is the WHERE condition of the sets the query reads, with the
// delivery rows no campaign holds beside a per-campaign set (unattributedRows)
// that carry some of the sums the query reads.
func (c *compilation) breakdownRows() string {
	in := c.setRows()
	if c.unattributed == "" {
		return in
	}
	// Only where it has some of what the query sums: a delivery row with no
	// conversions is not a conversion_action row, nor a row of zeros.
	var some []string
	for _, m := range c.sums {
		some = append(some, "coalesce(f."+catalog.MustLookup(m).Storage.Column+", 0) <> 0")
	}
	if len(some) == 0 {
		some = []string{"1 = 0"} // nothing summed (reach alone): no such row
	}
	return "(" + in + " OR " + c.unattributed + " AND coalesce(f.campaign_id, '') = '' AND (" + strings.Join(some, " OR ") + "))"
}

// sumRef is an additive sum's column in the agg stage.
func (c *compilation) sumRef(name string) string {
	return fmt.Sprintf("g.s%d", slices.Index(c.sums, name))
}

// metricExpr is a used metric's expression over the sums and the joined reach,
// as its aggregation says; ok is false when the metric is left out of the
// query (non-additive without the reach it needs).
func (c *compilation) metricExpr(f catalog.Field) (string, bool) {
	switch f.Aggregation {
	case catalog.Sum:
		return c.sumRef(f.Name), true
	case catalog.Ratio:
		return fmt.Sprintf("CASE WHEN %[2]s <> 0 THEN %[1]s / %[2]s * %[3]g END", c.sumRef(f.Numerator), c.sumRef(f.Denominator), f.Scale), true
	}
	// Non-additive: a stored distinct count, or a sum over one.
	if c.reach == nil {
		if !keptEmpty(c.q, f.Name) {
			return "", false // left out: not available for this query
		}
		return emptyMetric(c.d), true
	}
	if f.Distinct != "" {
		return "r." + f.Distinct, true
	}
	den := "r." + catalog.MustLookup(f.Denominator).Distinct
	return fmt.Sprintf("CASE WHEN %[2]s > 0 THEN %[1]s / %[2]s END", c.sumRef(f.Numerator), den), true
}

// calculate is the calc stage: the metrics computed from the sums (and the
// sums themselves, for the hidden parts of ratios).
func (c *compilation) calculate(agg string) string {
	var calc []string
	for _, k := range c.groups {
		calc = append(calc, "g."+k)
	}
	c.metricRef = map[string]string{}
	for _, m := range c.used {
		e, ok := c.metricExpr(catalog.MustLookup(m))
		if !ok {
			continue
		}
		c.metricRef[m] = fmt.Sprintf("m%d", len(c.metricRef))
		calc = append(calc, fmt.Sprintf("%s AS %s", e, c.metricRef[m]))
	}
	c.p.Notices = append(c.p.Notices, notReported(c.q, c.reach != nil)...)
	for i, m := range c.sums {
		calc = append(calc, fmt.Sprintf("g.s%d AS h_%s", i, m))
	}
	// Subqueries rather than CTEs: the same SQL runs on engines without WITH
	// (ClickHouse 18).
	calcFrom := "(" + agg + ") AS g"
	if c.reach != nil {
		rsql, keys := c.reach.sql(c.b, c.q, c.groups)
		calcFrom = c.d.JoinReach(agg, rsql, keys)
	}
	calcSQL := fmt.Sprintf("SELECT %s\n  FROM %s", strings.Join(calc, ", "), calcFrom)
	if len(c.groups) == 0 {
		calcSQL += "\n  WHERE " + noFactsNoRow()
	}
	return calcSQL
}

// having are the metric filters on the computed rows.
func (c *compilation) having() ([]string, error) {
	var having []string
	for _, f := range c.q.Filters {
		if !f.Metric {
			continue
		}
		ref, ok := c.metricRef[f.Field]
		if !ok {
			return nil, &query.Error{Problems: []query.Problem{{Field: "filters", Value: f.Field,
				Problem: "cannot filter on a metric that is not available for this query (see the notice on " + f.Field + ")",
				Fix:     "remove the filter or ask at a grain where the metric is available"}}}
		}
		having = append(having, numberPredicate(c.b, ref, f))
	}
	return having, nil
}

// metricColumn is the result column of metric m, as the catalog describes it.
func (c *compilation) metricColumn(m string, hidden bool) *fit.Column {
	f := catalog.MustLookup(m)
	col := &fit.Column{Name: m, Role: fit.RoleMetric, Hidden: hidden}
	switch f.Aggregation {
	case catalog.Sum:
		col.Aggregation = fit.Sum
	case catalog.Ratio:
		col.Aggregation, col.Numerator, col.Denominator, col.Scale = fit.Ratio, f.Numerator, f.Denominator, f.Scale
	case catalog.NonAdditive:
		col.Aggregation, col.Numerator, col.Denominator, col.Scale = fit.NonAdditive, f.Numerator, f.Denominator, f.Scale
	}
	if f.Unit == catalog.Money {
		col.Money = true
		col.CurrencyColumn, col.Currency = currencyOf(c.q)
	}
	return col
}

// outputs are the final SELECT's columns, recorded in the plan: time,
// dimensions, the requested metrics, and the hidden parts of requested ratios
// (for exact roll-ups downstream).
func (c *compilation) outputs() []string {
	q, p := c.q, c.p
	var out []string
	if tc := q.Grain.TimeColumn(); tc != "" {
		out = append(out, c.d.FormatPeriod(q.Grain, "p"))
		p.Columns = append(p.Columns, &fit.Column{Name: tc, Role: fit.RoleTime})
	}
	for i, dim := range q.Dimensions {
		out = append(out, fmt.Sprintf("d%d", i))
		// A describing column (currency, attribution window) says how the
		// row's numbers are measured: never a breakdown step 1 judges.
		p.Columns = append(p.Columns, &fit.Column{Name: dim, Role: fit.RoleDimension, Unit: catalog.MustLookup(dim).Describes})
	}
	for _, m := range q.Metrics {
		if ref, ok := c.metricRef[m]; ok {
			out = append(out, ref)
			p.Columns = append(p.Columns, c.metricColumn(m, false))
		}
	}
	for _, m := range q.Metrics {
		f := catalog.MustLookup(m)
		if f.Aggregation != catalog.Ratio {
			continue
		}
		for _, part := range []string{f.Numerator, f.Denominator} {
			if !slices.Contains(q.Metrics, part) && p.column(part) == nil {
				out = append(out, "h_"+part)
				p.Columns = append(p.Columns, c.metricColumn(part, true))
			}
		}
	}
	return out
}

// final is the final stage: metric filters, the count before the limit, order
// and limit.
func (c *compilation) final(calcSQL string) error {
	having, err := c.having()
	if err != nil {
		return err
	}
	out := c.outputs()
	keys := orderBy(c.d, c.q, c.metricRef)
	havingSQL := ""
	if len(having) > 0 {
		havingSQL = "\nWHERE " + strings.Join(having, "\n  AND ")
	}
	if c.q.Limit > 0 {
		c.p.SQL = limitSQL(c.b, c.q, c.p, out, calcSQL, havingSQL, keys)
		return nil
	}
	rowCols := make([]string, len(out))
	for i, o := range out {
		if i == 0 && c.q.Grain.TimeColumn() != "" {
			o = "p"
		}
		rowCols[i] = fmt.Sprintf("%s AS c%d", o, i)
	}
	if len(having) == 0 {
		c.p.Groups = c.agg
	}
	c.p.Rows = fmt.Sprintf("SELECT %s, %s AS e_\nFROM (\n  %s\n) AS calc%s", strings.Join(rowCols, ", "), emptyFlag(c.q, c.p), calcSQL, havingSQL)
	if c.d.WindowCount() {
		out = append(out, "COUNT(*) OVER () AS n_before_limit")
	} else {
		c.p.ReaderCounts = true
	}
	c.p.SQL = fmt.Sprintf("SELECT %s\nFROM (\n  %s\n) AS calc%s\nORDER BY %s", strings.Join(out, ", "), calcSQL, havingSQL, strings.Join(keys, ", "))
	return nil
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

package answer

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// The diagnosis says what an answer's gaps mean, so that nothing a user might
// misread goes unexplained: an empty answer says whether the accounts have no
// data for those dates (and where their data is) or the filters matched
// nothing; an account that contributes no rows, or data for only part of the
// range, is named; blank cells say why they are blank; a filter that likely
// means something else than intended says so. Every notice is computed from
// the query, the table and, where the source offers it, each account's data
// coverage (source.CoverageSource) — never guessed.

// diagnose returns the notices explaining tab, the source's answer to q, and
// the accounts that have data in q's range (all of them when the source cannot
// say).
func (e *Engine) diagnose(ctx context.Context, q *query.Query, tab *fit.Table, cov map[string]source.Coverage) ([]fit.Notice, []string) {
	var withData []string
	outs := outside(q, cov)
	for _, a := range q.Accounts {
		if !slices.ContainsFunc(outs, func(o ads.Account) bool { return o.AccountID == a.AccountID }) {
			withData = append(withData, a.AccountID)
		}
	}
	var out []fit.Notice
	if tab.Len() == 0 {
		out = append(out, e.noRows(ctx, q, cov))
	} else {
		out = append(out, accountNotices(q, tab, cov)...)
		out = append(out, emptyValues(q, tab)...)
		out = append(out, unattributedDelivery(q, tab)...)
	}
	return append(out, fractionFilters(q)...), withData
}

// coverage is each queried account's data coverage, or nil when the source
// cannot say (or fails to: the diagnosis then says less, never something
// wrong).
func (e *Engine) coverage(ctx context.Context, q *query.Query) map[string]source.Coverage {
	cs, ok := e.Source.(source.CoverageSource)
	if !ok {
		return nil
	}
	cov, err := cs.Coverage(ctx, q.AccountIDs())
	if err != nil {
		return nil
	}
	return cov
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

// span is "on X" for one day, else "from X to Y".
func span(from, to time.Time) string {
	if from.Equal(to) {
		return "on " + day(from)
	}
	return "from " + day(from) + " to " + day(to)
}

func rangeText(q *query.Query) string {
	if q.Start.Equal(q.End) {
		return day(q.Start)
	}
	return day(q.Start) + " … " + day(q.End)
}

func accountText(a ads.Account) string {
	s := fmt.Sprintf("%q (%s", a.AccountName, a.AccountID)
	if a.Status != "" && a.Status != "ACTIVE" {
		s += ", " + a.Status
	}
	return s + ")"
}

// whereData is where an account's data is: "has data from A to B" or "has no
// data at all".
func whereData(a ads.Account, cov map[string]source.Coverage) string {
	c, ok := cov[a.AccountID]
	if !ok {
		return accountText(a) + " has no data at all"
	}
	return fmt.Sprintf("%s has data from %s to %s", accountText(a), day(c.First), day(c.Last))
}

// whereAll is whereData for several accounts, those with the same coverage
// together: "A (…), B (…) have data from X to Y; C (…) has no data at all".
func whereAll(accts []ads.Account, cov map[string]source.Coverage) string {
	var keys []string
	who := map[string][]string{}
	for _, a := range accts {
		k := "has no data at all"
		if c, ok := cov[a.AccountID]; ok {
			k = fmt.Sprintf("has data from %s to %s", day(c.First), day(c.Last))
		}
		if who[k] == nil {
			keys = append(keys, k)
		}
		who[k] = append(who[k], accountText(a))
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		if len(who[k]) > 1 {
			k = "have" + strings.TrimPrefix(k, "has")
		}
		parts[i] = strings.Join(who[keys[i]], ", ") + " " + k
	}
	return strings.Join(parts, "; ")
}

// outside are the accounts with no data in q's date range, by coverage.
func outside(q *query.Query, cov map[string]source.Coverage) []ads.Account {
	if cov == nil {
		return nil
	}
	var out []ads.Account
	for _, a := range q.Accounts {
		if c, ok := cov[a.AccountID]; !ok || !c.Overlaps(q.Start, q.End) {
			out = append(out, a)
		}
	}
	return out
}

// noRows explains an empty answer, so that it is never read as "zero spend":
// the accounts have no data for those dates (and where their data is), or
// they do and the filters matched nothing (which ones). Only when the
// accounts really have no facts for the dates and filters does it tell the
// user there is no data.
func (e *Engine) noRows(ctx context.Context, q *query.Query, cov map[string]source.Coverage) fit.Notice {
	notice := func(detail string) fit.Notice { return fit.Notice{Type: "no_rows", Detail: detail} }
	// Rows exist, but no aggregated row passes the metric filters: that is not
	// "no data", and has a type of its own.
	nonePassed := func(detail string) fit.Notice { return fit.Notice{Type: "no_rows_pass_metric_filters", Detail: detail} }
	if out := outside(q, cov); len(out) == len(q.Accounts) {
		return notice(fmt.Sprintf("No data: %s; nothing in %s. Tell the user there is no data for this period (not zero spend)%s.",
			whereAll(out, cov), rangeText(q), laterHint(q, cov)))
	}
	var metricFilters, dimFilters []query.Filter
	for _, f := range q.Filters {
		if f.Metric {
			metricFilters = append(metricFilters, f)
		} else {
			dimFilters = append(dimFilters, f)
		}
	}
	if len(metricFilters) > 0 && e.hasFacts(ctx, q, dimFilters) {
		return nonePassed(fmt.Sprintf("Nothing passed the metric filters: the accounts have data in %s%s, but no row %s has %s "+
			"(metric filters apply to each aggregated row). Tell the user no row meets the condition, not that there is no data.",
			rangeText(q), filterText(" matching ", dimFilters), rowsText(q), filterText("", metricFilters)))
	}
	if len(dimFilters) > 0 && e.hasFacts(ctx, q, nil) {
		return notice(fmt.Sprintf("Nothing matched the filters %s: the accounts have data in %s, but none of it has those values. "+
			"Tell the user nothing matches (check the values' spelling), not that the accounts have no data.",
			filterText("", dimFilters), rangeText(q)))
	}
	detail := "No data: these accounts have no rows "
	if len(q.Filters) > 0 {
		detail += filterText("matching ", q.Filters) + " "
	}
	detail += fmt.Sprintf("from %s to %s", day(q.Start), day(q.End))
	if cov != nil {
		detail += " (" + whereAll(q.Accounts, cov) + ", with gaps: no rows for these dates)"
	}
	return notice(detail + ". Tell the user there is no data, rather than zeros.")
}

// laterHint adds, when every account's data ends before the range starts,
// that the data may not be loaded yet for recent dates.
func laterHint(q *query.Query, cov map[string]source.Coverage) string {
	var last time.Time
	for _, a := range q.Accounts {
		c, ok := cov[a.AccountID]
		if !ok {
			return ""
		}
		if c.Last.After(last) {
			last = c.Last
		}
	}
	if !last.IsZero() && last.Before(q.Start) && q.Start.Sub(last) <= 3*24*time.Hour {
		return "; the most recent data is from " + day(last) + ", so the days after it are not loaded yet"
	}
	return ""
}

// hasFacts says whether the accounts have any fact row for q's dates and
// the given dimension filters: one cheap total over them (a total over no
// facts is no row), grouped by q's breakdown dimensions so that it reads the
// breakdown set q reads (the delivery rows may match where the set has
// none), summing what q sums. A failing probe says nothing (false).
func (e *Engine) hasFacts(ctx context.Context, q *query.Query, dimFilters []query.Filter) bool {
	probe := *q
	var breakdowns []string
	for _, d := range q.Dimensions {
		if catalog.IsBreakdown(d) {
			breakdowns = append(breakdowns, d)
		}
	}
	// The query's own sums: beside a per-campaign set, delivery no campaign
	// holds is read only where it has some of them (sqlgen), so impressions
	// could find rows the query cannot have.
	var sums []string
	for _, m := range q.Metrics {
		if catalog.MustLookup(m).Aggregation != catalog.NonAdditive {
			sums = append(sums, m)
		}
	}
	if len(sums) == 0 {
		sums = []string{"impressions"}
	}
	probe.Dimensions, probe.Metrics, probe.Grain = breakdowns, sums, fit.Total
	probe.Filters, probe.Sort, probe.Limit = dimFilters, nil, 0
	tab, err := e.Source.Query(ctx, &probe)
	return err == nil && tab.Len() > 0
}

// rowsText names the rows a metric filter applies to: "per campaign_name and
// week", "in total".
func rowsText(q *query.Query) string {
	by := slices.Clone(q.Dimensions)
	switch q.Grain {
	case fit.Daily:
		by = append(by, "day")
	case fit.Weekly:
		by = append(by, "week")
	case fit.Monthly:
		by = append(by, "month")
	}
	if len(by) == 0 {
		return "(the total)"
	}
	return "per " + strings.Join(by, " and ")
}

// filterText is the filters as "field OPERATOR value", joined by " and ",
// after prefix; empty when there are none.
func filterText(prefix string, fs []query.Filter) string {
	if len(fs) == 0 {
		return ""
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return prefix + strings.Join(parts, " and ")
}

// accountNotices name the accounts that contribute no rows to a non-empty
// answer, and those whose data covers only part of the range.
func accountNotices(q *query.Query, tab *fit.Table, cov map[string]source.Coverage) []fit.Notice {
	var out []fit.Notice
	var gone []string
	outs := outside(q, cov)
	for _, a := range outs {
		gone = append(gone, whereData(a, cov)+", nothing in "+rangeText(q))
	}
	if present := presentAccounts(q, tab); present != nil && !(q.Limit > 0 && tab.RowsBeforeLimit > tab.Len()) {
		why := "no data for these dates"
		if len(q.Filters) > 0 {
			why = "none of its data matches " + filterText("", q.Filters)
		}
		for _, a := range q.Accounts {
			if !present[a.AccountID] && !slices.ContainsFunc(outs, func(o ads.Account) bool { return o.AccountID == a.AccountID }) {
				gone = append(gone, accountText(a)+" returned no rows: "+why)
			}
		}
	}
	if len(gone) > 0 {
		out = append(out, fit.Notice{Type: "account_no_rows", Detail: "No rows for some accounts, so the rows and totals cover the others only: " + strings.Join(gone, "; ") + "."})
	}
	if cov == nil {
		return out
	}
	// Accounts whose data covers only part of the range, grouped by where it
	// ends (or starts).
	var ends, starts []string
	endsAt, startsAt := map[string][]string{}, map[string][]string{}
	for _, a := range q.Accounts {
		c, ok := cov[a.AccountID]
		if !ok || !c.Overlaps(q.Start, q.End) {
			continue
		}
		if c.Last.Before(q.End) {
			k := day(c.Last)
			if endsAt[k] == nil {
				ends = append(ends, k)
			}
			endsAt[k] = append(endsAt[k], fmt.Sprintf("%q", a.AccountName))
		}
		if c.First.After(q.Start) {
			k := day(c.First)
			if startsAt[k] == nil {
				starts = append(starts, k)
			}
			startsAt[k] = append(startsAt[k], fmt.Sprintf("%q", a.AccountName))
		}
	}
	var parts []string
	for _, k := range ends {
		who := strings.Join(endsAt[k], ", ")
		if len(endsAt[k]) == len(q.Accounts) && len(q.Accounts) > 1 {
			who = "every account"
		}
		last, _ := time.Parse(time.DateOnly, k)
		parts = append(parts, fmt.Sprintf("the data of %s ends %s: nothing %s", who, k, span(last.AddDate(0, 0, 1), q.End)))
	}
	for _, k := range starts {
		who := strings.Join(startsAt[k], ", ")
		if len(startsAt[k]) == len(q.Accounts) && len(q.Accounts) > 1 {
			who = "every account"
		}
		first, _ := time.Parse(time.DateOnly, k)
		parts = append(parts, fmt.Sprintf("the data of %s starts %s: nothing %s", who, k, span(q.Start, first.AddDate(0, 0, -1))))
	}
	if len(parts) > 0 {
		out = append(out, fit.Notice{Type: "partial_data", Detail: "The data covers only part of the range " + rangeText(q) + ": " + strings.Join(parts, "; ") +
			". Totals are for the days with data; do not read the missing days as zero."})
	}
	return out
}

// presentAccounts is the set of account IDs with rows in tab, when tab has an
// account column (account_id or account_name); nil otherwise.
func presentAccounts(q *query.Query, tab *fit.Table) map[string]bool {
	present := map[string]bool{}
	if c := tab.Column("account_id"); c != nil && c.Role == fit.RoleDimension {
		for _, v := range c.Strings {
			present[v] = true
		}
		return present
	}
	if c := tab.Column("account_name"); c != nil && c.Role == fit.RoleDimension {
		names := map[string]bool{}
		for _, v := range c.Strings {
			names[v] = true
		}
		for _, a := range q.Accounts {
			present[a.AccountID] = names[a.AccountName]
		}
		return present
	}
	return nil
}

// emptyValues explains the blank cells of visible metric columns that no
// other notice explains: a ratio over zero, reach that cannot be combined
// because several campaigns (or accounts) share a name, a value the platform
// left empty.
func emptyValues(q *query.Query, tab *fit.Table) []fit.Notice {
	explained := map[string]bool{}
	for _, n := range tab.Notices {
		switch n.Type {
		case "metric_unavailable_at_grain", "metric_not_reported":
			for _, f := range n.Fields {
				explained[f] = true
			}
		}
	}
	hasEmpty := func(c *fit.Column) bool {
		for i := range c.Numbers {
			if c.IsNull(i) {
				return true
			}
		}
		return false
	}
	// No counts: the rows may yet be rolled up or filtered by the fitting.
	var out []fit.Notice
	var reachCols []string
	for _, c := range tab.Columns {
		if c.Role != fit.RoleMetric || c.Hidden || !hasEmpty(c) {
			continue
		}
		switch c.Aggregation {
		case fit.Ratio:
			out = append(out, fit.Notice{Type: "empty_values", Fields: []string{c.Name},
				Detail: fmt.Sprintf("%s is empty where %s is 0: a ratio over zero is undefined (not 0)", c.Name, c.Denominator)})
		case fit.NonAdditive:
			reachCols = append(reachCols, c.Name)
		default:
			if !explained[c.Name] {
				out = append(out, fit.Notice{Type: "empty_values", Fields: []string{c.Name},
					Detail: fmt.Sprintf("%s is empty where the platform reported no value: unknown, not 0", c.Name)})
			}
		}
	}
	if len(reachCols) > 0 && !explained[reachCols[0]] {
		out = append(out, reachReasons(q, tab, reachCols)...)
	}
	return out
}

// reachReasons explain the blank reach and frequency cells (cols) of the rows
// no other notice explains, each by what is true of its row:
//   - frequency where reach is 0: impressions / reach has no value;
//   - a name several objects share (accounts: known from the accounts
//     queried; campaigns: the source's reach is blank for a shared name and
//     for one without stored reach alike, so both are said);
//   - else no reach stored for the row's period.
func reachReasons(q *query.Query, tab *fit.Table, cols []string) []fit.Notice {
	reach := tab.Column("reach")
	if reach != nil && (reach.Role != fit.RoleMetric || reach.Hidden) {
		reach = nil
	}
	var zeroReach, blank []int
	for _, r := range unexplainedReach(q, tab, cols) {
		if reach != nil && !reach.IsNull(r) {
			zeroReach = append(zeroReach, r)
		} else {
			blank = append(blank, r)
		}
	}
	// The columns blank in some of rows, in table order.
	emptyIn := func(rows []int) (fields []string, what string) {
		for _, name := range cols {
			c := tab.Column(name)
			if slices.ContainsFunc(rows, c.IsNull) {
				fields = append(fields, name)
			}
		}
		verb := map[bool]string{true: "is", false: "are"}[len(fields) == 1]
		return fields, strings.Join(fields, " and ") + " " + verb
	}
	var out []fit.Notice
	if len(zeroReach) > 0 {
		fields, what := emptyIn(zeroReach)
		out = append(out, fit.Notice{Type: "empty_values", Fields: fields,
			Detail: fmt.Sprintf("%s empty where reach is 0 (nobody was reached): impressions / reach has no value (not 0)", what)})
	}
	if len(blank) == 0 {
		return out
	}
	notStored := "no reach is stored (no delivery counted in that period)"
	if reach == nil && slices.Contains(cols, "frequency") {
		notStored = "reach is 0 or not stored (no delivery counted in that period)"
	}
	var shared, alone []int
	switch sharedLevel(q) {
	case "campaign":
		// The source leaves reach blank alike for a name several campaigns
		// share and for a campaign without stored reach: both are said.
		fields, what := emptyIn(blank)
		return append(out, fit.Notice{Type: "empty_values", Fields: fields,
			Detail: fmt.Sprintf("%s empty where several campaigns share a campaign_name (in one account or across accounts), whose audiences overlap so one reach for the name cannot be computed, or where %s%s; add campaign_id to dimensions to get reach per campaign",
				what, notStored, examples(q, tab, blank))})
	case "account":
		names := tab.Column("account_name")
		for _, r := range blank {
			if namedAccounts(q, names.Strings[r]) > 1 {
				shared = append(shared, r)
			} else {
				alone = append(alone, r)
			}
		}
	default:
		alone = blank
	}
	if len(shared) > 0 {
		fields, what := emptyIn(shared)
		out = append(out, fit.Notice{Type: "empty_values", Fields: fields,
			Detail: fmt.Sprintf("%s empty where several accounts share an account_name%s: their audiences overlap, so one reach for the name cannot be computed; add account_id to dimensions to get reach per account",
				what, examples(q, tab, shared))})
	}
	if len(alone) > 0 {
		fields, what := emptyIn(alone)
		out = append(out, fit.Notice{Type: "empty_values", Fields: fields,
			Detail: fmt.Sprintf("%s empty where %s: unknown, not 0", what, notStored)})
	}
	return out
}

// namedAccounts is how many of q's accounts are named name.
func namedAccounts(q *query.Query, name string) int {
	n := 0
	for _, a := range q.Accounts {
		if a.AccountName == name {
			n++
		}
	}
	return n
}

// unexplainedReach are the rows where one of the reach columns cols is empty
// outside the periods that partial_period already explains (a first or last
// week or month cut by the range), and with every dimension set.
func unexplainedReach(q *query.Query, tab *fit.Table, cols []string) []int {
	var cs []*fit.Column
	for _, name := range cols {
		cs = append(cs, tab.Column(name))
	}
	var cut []string
	if tc := tab.Column(tab.Grain.TimeColumn()); tc != nil && tab.Grain.TimeColumn() != "" {
		first, last := fit.PartialPeriods(tab.Grain, q.Start, q.End)
		label := func(t time.Time) string {
			if tab.Grain == fit.Monthly {
				return t.Format("2006-01")
			}
			return day(t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)))
		}
		if first {
			cut = append(cut, label(q.Start))
		}
		if last {
			cut = append(cut, label(q.End))
		}
	}
	tc := tab.Column(tab.Grain.TimeColumn())
	var dims []*fit.Column
	for _, d := range tab.Columns {
		if d.Role == fit.RoleDimension {
			dims = append(dims, d)
		}
	}
	// A row with an empty dimension is not an object's (spend not attributed
	// to any campaign): it has no reach to show, and is reported as such.
	unattributed := func(i int) bool {
		return slices.ContainsFunc(dims, func(d *fit.Column) bool { return d.Strings[i] == "" })
	}
	var rows []int
	for i := range tab.Len() {
		empty := slices.ContainsFunc(cs, func(c *fit.Column) bool { return c.IsNull(i) })
		if empty && (tc == nil || !slices.Contains(cut, tc.Strings[i])) && !unattributed(i) {
			rows = append(rows, i)
		}
	}
	return rows
}

// sharedLevel says, when a row's name may stand for several objects (grouped
// by campaign_name without campaign_id, or account_name without account_id
// over several accounts), which objects: "campaign" or "account"; "" when
// rows are by ID.
func sharedLevel(q *query.Query) string {
	level := "account"
	for _, d := range q.Dimensions {
		if catalog.MustLookup(d).Level == catalog.LevelCampaign {
			level = "campaign"
		}
	}
	has := func(d string) bool { return slices.Contains(q.Dimensions, d) }
	switch {
	case level == "campaign" && has("campaign_name") && !has("campaign_id"):
		return "campaign"
	case level == "account" && has("account_name") && !has("account_id") && len(q.Accounts) > 1:
		return "account"
	}
	return ""
}

// examples are up to three names of the given rows (where a name-shared
// reach is empty), when every queried account's platform reports reach (else
// a blank may be another account's).
func examples(q *query.Query, tab *fit.Table, rows []int) string {
	reach := catalog.MustLookup("reach")
	for _, a := range q.Accounts {
		if !reach.HasPlatform(a.Platform) {
			return ""
		}
	}
	names := tab.Column(sharedLevel(q) + "_name")
	if names == nil {
		return ""
	}
	var ex []string
	for _, i := range rows {
		if n := strconv.Quote(names.Strings[i]); names.Strings[i] != "" && !slices.Contains(ex, n) {
			ex = append(ex, n)
			if len(ex) == 3 {
				break
			}
		}
	}
	if len(ex) == 0 {
		return ""
	}
	return " (e.g. " + strings.Join(ex, ", ") + ")"
}

// fractionFilters warn when a filter on a percentage metric gives a value
// below 1, as if it were a fraction: ctr > 0.015 keeps rows above 0.015%,
// almost all of them, where 1.5% was likely meant.
func fractionFilters(q *query.Query) []fit.Notice {
	var out []fit.Notice
	for _, f := range q.Filters {
		if !f.Metric {
			continue
		}
		field, ok := catalog.Lookup(f.Field)
		if !ok || field.Unit != catalog.Percent {
			continue
		}
		for _, v := range f.Values {
			x, ok := v.(float64)
			if !ok || x == 0 || x <= -1 || x >= 1 {
				continue
			}
			pct := strconv.FormatFloat(x*100, 'f', -1, 64)
			s := strconv.FormatFloat(x, 'f', -1, 64)
			out = append(out, fit.Notice{Type: "filter_looks_like_fraction", Fields: []string{f.Field},
				Detail: fmt.Sprintf("%s is a percentage (%s means %s%%); %s means %s%%. If %s%% was meant, filter with %s instead and say so.",
					f.Field, pct, pct, s, s, pct, pct)})
			break
		}
	}
	return out
}

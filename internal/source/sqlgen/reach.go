package sqlgen

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Reach counts distinct people, so it can never be summed from days or objects.
// The warehouse stores it per account and per campaign for whole days, ISO weeks
// and calendar months (never quarters); a query gets reach only where one stored
// value answers each row exactly. Otherwise reach (and frequency, which divides by it) is left
// out or left empty, and a notice says why.

// reachPlan says which stored reach values answer a query.
type reachPlan struct {
	level string // "account" or "campaign"
	grain fit.Grain
	total bool      // total grain answered by exactly one stored period
	first time.Time // first period start fully inside the date range
	last  time.Time // last period start fully inside the date range
}

// reachDimExpr are the dimensions answerable from the reach table, over
// r = reach, a = accounts, c = campaigns (joined on the campaign's id).
var reachDimExpr = map[string]string{
	"platform":           "a.platform",
	"account_id":         "r.account_id",
	"account_name":       "a.account_name",
	"currency":           "a.currency",
	"attribution_window": "a.attribution_window",
	"campaign_id":        "c.campaign_id",
	"campaign_name":      "c.campaign_name",
	"campaign_objective": "c.campaign_objective",
	"campaign_status":    "c.campaign_status",
}

func planReach(q *query.Query, used []string) (*reachPlan, *fit.Notice) {
	var wanted []string
	for _, m := range used {
		if f := catalog.MustLookup(m); f.Aggregation == catalog.NonAdditive {
			wanted = append(wanted, m)
		}
	}
	if len(wanted) == 0 {
		return nil, nil
	}
	unavailable := func(why string) (*reachPlan, *fit.Notice) {
		what := strings.Join(wanted, " and ") + " left out"
		if onlyNonAdditive(q.Metrics) {
			what = strings.Join(wanted, " and ") + map[bool]string{true: " is", false: " are"}[len(wanted) == 1] + " empty"
		}
		return nil, &fit.Notice{Type: "metric_unavailable_at_grain", Fields: wanted,
			Detail: fmt.Sprintf("%s: %s", what, why)}
	}
	level := "account"
	for _, d := range q.Dimensions {
		switch catalog.MustLookup(d).Level {
		case catalog.LevelAccount:
		case catalog.LevelCampaign:
			level = "campaign"
		default:
			return unavailable(fmt.Sprintf("reach counts distinct people and is stored per account and per campaign only, not per %s; drop %s from dimensions to get reach", d, d))
		}
	}
	identified := slices.Contains(q.Dimensions, "account_id") || slices.Contains(q.Dimensions, "account_name") || len(q.Accounts) == 1
	if level == "campaign" {
		identified = slices.Contains(q.Dimensions, "campaign_id") || slices.Contains(q.Dimensions, "campaign_name")
	}
	if !identified {
		return unavailable(fmt.Sprintf("each row would mix several %ss, whose audiences overlap, so their reach cannot be combined; add %s_id or %s_name to dimensions", level, level, level))
	}
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		if _, ok := reachDimExpr[f.Field]; !ok || level == "account" && catalog.MustLookup(f.Field).Level != catalog.LevelAccount {
			return unavailable(fmt.Sprintf("a filter on %s selects part of a %s's audience, and reach for that part is not stored", f.Field, level))
		}
	}
	rp := &reachPlan{level: level, grain: q.Grain}
	switch q.Grain {
	case fit.Quarterly:
		return unavailable("reach is not stored per calendar quarter (only per day, ISO week and calendar month), and a quarter's reach cannot be summed from its months; use time_granularity monthly" + wholePeriods(q.Start, q.End))
	case fit.Daily:
		rp.first, rp.last = q.Start, q.End
	case fit.Weekly:
		rp.first = nextMonday(q.Start)
		rp.last = PeriodStart(fit.Weekly, q.End.AddDate(0, 0, 1)).AddDate(0, 0, -7)
	case fit.Monthly:
		rp.first = firstOfMonth(q.Start)
		if !rp.first.Equal(q.Start) {
			rp.first = rp.first.AddDate(0, 1, 0)
		}
		rp.last = firstOfMonth(q.End.AddDate(0, 0, 1)).AddDate(0, -1, 0)
	case fit.Total:
		rp.total = true
		rp.first, rp.last = q.Start, q.Start
		switch {
		case q.Start.Equal(q.End):
			rp.grain = fit.Daily
		case q.Start.Weekday() == time.Monday && q.End.Equal(q.Start.AddDate(0, 0, 6)):
			rp.grain = fit.Weekly
		case q.Start.Day() == 1 && q.End.Equal(q.Start.AddDate(0, 1, -1)):
			rp.grain = fit.Monthly
		default:
			return unavailable("reach over an arbitrary date range is not stored (only per day, ISO week and calendar month); use time_granularity daily, weekly or monthly, or a date range of exactly one day, week or month" + wholePeriods(q.Start, q.End))
		}
	}
	return rp, nil
}

// wholePeriods names the stored periods inside [start, end] that could answer
// reach instead of the whole range: "; inside 2026-01-07 … 2026-01-25 lie the
// ISO weeks 2026-01-12 … 2026-01-25 (2 weeks) and no whole month".
func wholePeriods(start, end time.Time) string {
	span := func(g fit.Grain) string {
		var first, last time.Time
		n := 0
		switch g {
		case fit.Weekly:
			first = nextMonday(start)
			last = PeriodStart(fit.Weekly, end.AddDate(0, 0, 1)).AddDate(0, 0, -1)
			n = int(last.Sub(first).Hours()/24+1) / 7
		case fit.Monthly:
			first = firstOfMonth(start)
			if !first.Equal(start) {
				first = first.AddDate(0, 1, 0)
			}
			last = firstOfMonth(end.AddDate(0, 0, 1)).AddDate(0, 0, -1)
			for m := first; m.Before(last); m = m.AddDate(0, 1, 0) {
				n++
			}
		}
		unit := map[fit.Grain]string{fit.Weekly: "week", fit.Monthly: "month"}[g]
		switch {
		case n <= 0:
			return "no whole " + map[fit.Grain]string{fit.Weekly: "ISO week", fit.Monthly: "calendar month"}[g]
		case n == 1:
			return fmt.Sprintf("the %s %s … %s", unit, first.Format(time.DateOnly), last.Format(time.DateOnly))
		}
		return fmt.Sprintf("the %d whole %ss %s … %s", n, unit, first.Format(time.DateOnly), last.Format(time.DateOnly))
	}
	return fmt.Sprintf("; inside %s … %s lie %s and %s", start.Format(time.DateOnly), end.Format(time.DateOnly), span(fit.Weekly), span(fit.Monthly))
}

// onlyNonAdditive says whether every requested metric is reach or frequency:
// then, where they are unavailable, they are kept as empty columns so the
// answer still has its rows (and a metric column to show them with).
func onlyNonAdditive(metrics []string) bool {
	return !slices.ContainsFunc(metrics, func(m string) bool {
		return catalog.MustLookup(m).Aggregation != catalog.NonAdditive
	})
}

// keptEmpty says whether metric m, unavailable for q, is kept as an empty
// column rather than left out.
func keptEmpty(q *query.Query, m string) bool {
	return onlyNonAdditive(q.Metrics) && slices.Contains(q.Metrics, m)
}

// emptyMetric is an empty (NULL) metric value, typed as a double in every
// dialect.
func emptyMetric(d Dialect) string {
	return "CASE WHEN 1 = 0 THEN " + d.Double("0") + " END"
}

// noFactsNoRow is the condition that keeps an aggregate without groups (the
// total of everything selected) from answering one row of empty sums when
// nothing was selected: no facts, no row.
func noFactsNoRow() string { return "g.fact_rows > 0" }

// unavailableFilters is the error for a metric filter on reach or frequency
// when they are not available for the query.
func unavailableFilters(q *query.Query) error {
	for _, f := range q.Filters {
		if f.Metric && catalog.MustLookup(f.Field).Aggregation == catalog.NonAdditive {
			return &query.Error{Problems: []query.Problem{{Field: "filters", Value: f.Field,
				Problem: "cannot filter on a metric that is not available for this query (see the notice on " + f.Field + ")",
				Fix:     "remove the filter or ask at a grain where the metric is available"}}}
		}
	}
	return nil
}

// nextMonday is t when t is a Monday, else the Monday after t.
func nextMonday(t time.Time) time.Time {
	return t.AddDate(0, 0, (8-int(t.Weekday()))%7)
}

func firstOfMonth(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// notices are what the reach plan tells the reader about rows left empty
// (accounts whose platform reports no reach: see notReported).
func (rp *reachPlan) notices(q *query.Query) []fit.Notice {
	var out []fit.Notice
	if !rp.total && (rp.grain == fit.Weekly || rp.grain == fit.Monthly) && (!rp.first.Equal(PeriodStart(rp.grain, q.Start)) || rp.last.Before(PeriodStart(rp.grain, q.End))) {
		out = append(out, fit.Notice{Type: "partial_period", Fields: []string{"reach", "frequency"},
			Detail: fmt.Sprintf("reach and frequency are empty for the first or last %s because the date range covers only part of it, and reach is stored for whole periods", strings.TrimSuffix(string(rp.grain), "ly"))})
	}
	return out
}

// PeriodStart is the start of the period of grain g holding t.
func PeriodStart(g fit.Grain, t time.Time) time.Time {
	switch g {
	case fit.Weekly:
		return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	case fit.Monthly:
		return firstOfMonth(t)
	}
	return t
}

// sql is the rch subquery: one reach value per result group and period, NULL
// when a group holds several objects (e.g. two campaigns with the same name),
// and the keys it joins the aggregated rows on.
func (rp *reachPlan) sql(b *builder, q *query.Query, groups []string) (string, []string) {
	var selects, keys, on []string
	dim := func(name string) string {
		if b.d.Layout() == Denormalized {
			return namedWindow(name, "r."+name)
		}
		return namedWindow(name, reachDimExpr[name])
	}
	if !rp.total && q.Grain != fit.Total {
		selects = append(selects, "r.period_start AS p")
		keys = append(keys, "p")
	}
	usesCampaign := rp.level == "campaign"
	for i, d := range q.Dimensions {
		selects = append(selects, fmt.Sprintf("%s AS d%d", dim(d), i))
		keys = append(keys, fmt.Sprintf("d%d", i))
	}
	selects = append(selects, "CASE WHEN COUNT(*) = 1 THEN "+b.d.Double("MAX(r.reach)")+" END AS reach")
	from := "reach r JOIN accounts a ON a.account_id = r.account_id"
	if usesCampaign {
		from += " JOIN campaigns c ON c.campaign_id = r.object_id"
	}
	if b.d.Layout() == Denormalized {
		from = "reach r"
	}
	where := []string{
		"r.level = " + b.param(rp.level),
		"r.grain = " + b.param(string(rp.grain)),
		"r.account_id IN (" + b.params(anySlice(q.AccountIDs())) + ")",
		"r.period_start BETWEEN " + b.d.Date(b.param(rp.first)) + " AND " + b.d.Date(b.param(rp.last)),
	}
	for _, f := range q.Filters {
		if !f.Metric {
			where = append(where, textPredicate(b, dim(f.Field), f))
		}
	}
	sql := fmt.Sprintf("SELECT %s\n  FROM %s\n  WHERE %s", strings.Join(selects, ", "), from, strings.Join(where, "\n    AND "))
	if len(keys) > 0 {
		sql += "\n  GROUP BY " + strings.Join(keys, ", ")
	}
	for _, k := range keys {
		if slices.Contains(groups, k) {
			on = append(on, k)
		}
	}
	return sql, on
}

// ReachNeed is which stored reach values the warehouse's SQL reads for a
// query: per Level ("account" or "campaign"), per period of Grain whose start
// lies in [First, Last]. Connectors fetch exactly these into a staged
// warehouse, so live answers carry reach where, and only where, the warehouse
// would.
type ReachNeed struct {
	Level       string
	Grain       fit.Grain
	First, Last time.Time
}

// ReachNeeded is the reach q reads, given the metrics it uses (its own and
// those of its filters); nil when it reads none.
func ReachNeeded(q *query.Query, used []string) *ReachNeed {
	rp, _ := planReach(q, used)
	if rp == nil || rp.last.Before(rp.first) {
		return nil
	}
	return &ReachNeed{Level: rp.level, Grain: rp.grain, First: rp.first, Last: rp.last}
}

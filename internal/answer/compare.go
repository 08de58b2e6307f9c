package answer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// compare answers a query with compare: the source is asked for both windows
// — the same accounts, dimensions, metrics, grain and dimension filters —
// and the pipeline fits the two joined (fit.Comparison). What selects
// compared rows (metric filters, which may name a change; sort and limit)
// applies to the joined rows, so it is never sent to the source: a window's
// own selection would make a row that merely fell below a threshold in one
// window look new or stopped.
func (e *Engine) compare(ctx context.Context, started time.Time, q *query.Query, b budget.Budget, opts fit.Options, calls *source.Calls, req Request) (*Result, error) {
	if b.Tokens < MinCompareBudget {
		// Below it, even the leanest summary of four columns per metric
		// may not fit (the oracle found 1,422 tokens at 1,064).
		// Every problem of the call at once: a window the warehouse cannot
		// answer too, not only on the next call.
		problems := []query.Problem{budgetTooSmall(b)}
		var windowErr *query.Error
		if source.StoresOneWindow(e.Source) && errors.As(q.StoredWindowError(), &windowErr) {
			problems = append(windowErr.Problems, problems...)
		}
		return e.errorAnswer(started, LimitsOf(b), q, outcome.InvalidQuery, "The query has problems; fix them and call query again.",
			map[string]any{"problems": problemList(problems)}, calls.N()), nil
	}
	cov := e.coverage(ctx, q)
	cur := WindowQuery(q)
	old := WindowQuery(q.CompareQuery())
	// A metric filter may name a metric not asked: each window asks for it
	// too, and it is carried hidden, for the filter only.
	hidden := filterOnly(q)
	cur.Metrics = append(slices.Clone(cur.Metrics), hidden...)
	old.Metrics = append(slices.Clone(old.Metrics), hidden...)
	req.progress("asking for the comparison window too, %s to %s", old.Start.Format(time.DateOnly), old.End.Format(time.DateOnly))
	tab, base, err := e.bothWindows(ctx, cur, old)
	if err != nil {
		return e.failed(ctx, started, b, q, err, calls)
	}
	hide(tab, hidden)
	hide(base, hidden)
	notices, withData := e.diagnose(ctx, q, tab, cov)
	if tab.Len() == 0 && base.Len() > 0 {
		// The comparison has rows (all stopped): what no_rows says is of
		// the current window only.
		for i := range notices {
			if notices[i].Type == "no_rows" {
				notices[i].Type = "no_rows_in_current_window"
				notices[i].Detail = fmt.Sprintf("Nothing in the current window %s matches this query; every row here is stopped: its figures are all in the comparison window %s", rangeText(q), rangeText(old))
			}
		}
	}
	if len(unattributedDelivery(q, tab)) == 0 {
		notices = append(notices, unattributedDelivery(q, base)...) // only the comparison window has such rows
	}
	tab.Notices = append(tab.Notices, notices...)
	e.zeroPartitions(ctx, q, tab, withData, &opts.Partitions)
	opts.Report.Warnings = append(opts.Report.Warnings, coverageWarnings(q, old, cov, tab, base)...)
	opts.Requery = func(ctx context.Context, g fit.Grain) (*fit.Table, error) {
		req.progress("too large at %s; asking the source at %s grain (current window)", q.Grain, g)
		q2 := *cur
		q2.Grain = g
		return e.Source.Query(ctx, &q2)
	}
	opts.Selection = ""
	opts.Compare = &fit.Comparison{Base: base, Start: old.Start, End: old.End, Mode: q.Compare.Mode,
		Pair: q.Compare.Pair(q.Start, q.End, q.Grain),
		Requery: func(ctx context.Context, g fit.Grain) (*fit.Table, error) {
			req.progress("too large at %s; asking the source at %s grain (comparison window)", q.Grain, g)
			q2 := *old
			q2.Grain = g
			return e.Source.Query(ctx, &q2)
		},
		Keep: keepCompared(q), Limit: q.Limit, Selection: selectionOf(q), Reads: comparedReads(q)}
	req.progress("comparing %d and %d rows within a budget of %d tokens", tab.Len(), base.Len(), b.Tokens)
	return e.fitted(ctx, started, b, q, tab, opts, calls)
}

// bothWindows asks the source for both windows at once (they are independent;
// one failing cancels the other).
func (e *Engine) bothWindows(ctx context.Context, cur, old *query.Query) (*fit.Table, *fit.Table, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var base *fit.Table
	var baseErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if base, baseErr = e.Source.Query(ctx, old); baseErr != nil {
			cancel()
		}
	}()
	tab, err := e.Source.Query(ctx, cur)
	if err != nil {
		cancel()
	}
	<-done
	switch {
	case err != nil && !(errors.Is(err, context.Canceled) && baseErr != nil):
		return nil, nil, err
	case baseErr != nil:
		return nil, nil, baseErr
	}
	return tab, base, nil
}

// filterOnly are the metrics q's metric filters name (directly or as a
// derived column) that q does not ask for.
func filterOnly(q *query.Query) []string {
	var out []string
	for _, f := range q.Filters {
		m := f.Field
		if base, _, ok := query.SplitDerived(m); ok {
			m = base
		}
		if f.Metric && !slices.Contains(q.Metrics, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// comparedReads are the compared columns q's selection reads: its metric
// filters' fields and the sort keys that name a metric or a metric's
// comparison column (spend_change), not a dimension or the time column.
func comparedReads(q *query.Query) []string {
	var out []string
	for _, f := range q.Filters {
		if f.Metric {
			out = append(out, f.Field)
		}
	}
	for _, k := range q.Sort {
		m := k.Field
		if base, _, ok := query.SplitDerived(m); ok {
			m = base
		}
		if f, ok := catalog.Lookup(m); ok && f.IsMetric() {
			out = append(out, k.Field)
		}
	}
	return out
}

// hide marks the columns of names hidden: carried, never shown.
func hide(t *fit.Table, names []string) {
	for _, n := range names {
		if c := t.Column(n); c != nil {
			c.Hidden = true
		}
	}
}

// MinCompareBudget is the smallest token budget (as _meta.token_budget
// announces it) a comparison is answered within.
const MinCompareBudget = 2000

// budgetTooSmall is the problem of a comparison asked within a smaller
// budget, naming where that budget came from: the token_budget argument, or
// the client's own.
func budgetTooSmall(b budget.Budget) query.Problem {
	p := query.Problem{Field: "token_budget", Value: b.Tokens,
		Problem: fmt.Sprintf("a comparison needs a budget of at least %d tokens", MinCompareBudget),
		Fix:     fmt.Sprintf("raise token_budget to %d or more, or drop compare", MinCompareBudget)}
	if !strings.HasPrefix(b.Source, "argument") {
		p.Field = "compare"
		p.Problem = fmt.Sprintf("a comparison needs a budget of at least %d tokens; this client's is %d (%s)", MinCompareBudget, b.Tokens, b.Source)
		p.Fix = "drop compare and ask for each window in its own call"
	}
	return p
}

// WindowQuery is what the source is asked for one window of a comparison: q
// without its selection of rows (metric filters, sort, limit), which applies
// to the compared rows.
func WindowQuery(q *query.Query) *query.Query {
	w := *q
	w.Compare = nil
	w.Sort, w.Limit, w.LimitPerCurrency = nil, 0, false
	w.Filters = nil
	for _, f := range q.Filters {
		if !f.Metric {
			w.Filters = append(w.Filters, f)
		}
	}
	return &w
}

// keepCompared selects the joined rows that pass q's metric filters, each on
// the column it names (spend: the current window's; spend_change: the
// change). A row whose value is empty passes none. Nil when q has none.
func keepCompared(q *query.Query) func(t *fit.Table, row int) bool {
	var fs []query.Filter
	for _, f := range q.Filters {
		if f.Metric {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(t *fit.Table, row int) bool {
		for _, f := range fs {
			c := t.Column(f.Field)
			if c == nil {
				continue // its metric is left out: fit says selection_not_applied
			}
			if c.IsNull(row) || !matchNumber(c.Numbers[row], f) {
				return false
			}
		}
		return true
	}
}

// matchNumber reports whether v passes the metric filter f.
func matchNumber(v float64, f query.Filter) bool {
	num := func(i int) float64 { x, _ := f.Values[i].(float64); return x }
	switch f.Operator {
	case query.Equals:
		return v == num(0)
	case query.NotEquals:
		return v != num(0)
	case query.GreaterThan:
		return v > num(0)
	case query.GreaterThanOrEqual:
		return v >= num(0)
	case query.LessThan:
		return v < num(0)
	case query.LessThanOrEqual:
		return v <= num(0)
	case query.Between:
		return v >= num(0) && v <= num(1)
	case query.In, query.NotIn:
		in := false
		for i := range f.Values {
			in = in || v == num(i)
		}
		return in == (f.Operator == query.In)
	}
	return false
}

// coverageWarnings say which accounts have no data, or data for only part,
// of the comparison window: their missing days count as zero in the comparison, so a
// −100 % or a new row there is a gap in the data, not a change. Where the
// source cannot say (no coverage), a window that returned no row at all while
// the other did is warned about.
func coverageWarnings(q, old *query.Query, cov map[string]source.Coverage, cur, base *fit.Table) []fit.Warning {
	if cov == nil {
		switch {
		case base.Len() == 0 && cur.Len() > 0:
			return []fit.Warning{{Type: "compare_coverage", Detail: fmt.Sprintf("The comparison window %s returned no rows at all: either nothing ran then or its data is missing here. Every row shows as new; do not report −100 %% or new campaigns without saying so", rangeText(old))}}
		case cur.Len() == 0 && base.Len() > 0:
			return []fit.Warning{{Type: "compare_coverage", Detail: fmt.Sprintf("The current window %s returned no rows at all while the comparison window did: either nothing runs now or its data is missing here", rangeText(q))}}
		}
		return nil
	}
	var out []fit.Warning
	for _, w := range []struct {
		name string
		q    *query.Query
	}{{"comparison window", old}} { // the current window's gaps are diagnosed as in any answer
		var none, part []string
		var keys []string
		for _, a := range q.Accounts {
			c, ok := cov[a.AccountID]
			switch {
			case !ok || !c.Overlaps(w.q.Start, w.q.End):
				none = append(none, accountText(a))
				keys = append(keys, a.AccountID)
			case c.First.After(w.q.Start) || c.Last.Before(w.q.End):
				part = append(part, fmt.Sprintf("%s has data only %s", accountText(a), span(maxTime(c.First, w.q.Start), minTime(c.Last, w.q.End))))
				keys = append(keys, a.AccountID)
			}
		}
		if len(none)+len(part) == 0 {
			continue
		}
		var says []string
		if len(none) > 0 {
			says = append(says, fmt.Sprintf("%s %s no data at all", strings.Join(none, ", "), map[bool]string{true: "has", false: "have"}[len(none) == 1]))
		}
		says = append(says, part...)
		out = append(out, fit.Warning{Type: "compare_coverage", Keys: keys,
			Detail: fmt.Sprintf("In the %s %s, %s. The missing days count as zero, so the changes they touch are gaps in the data, not real changes: say so, or compare only the days both windows cover", w.name, rangeText(w.q), strings.Join(says, "; "))})
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// derivedOf reports whether field is a comparison column of one of metrics
// (spend_compare, spend_change, spend_change_pct).
func derivedOf(metrics []string, field string) bool {
	m, _, ok := query.SplitDerived(field)
	return ok && slices.Contains(metrics, m)
}

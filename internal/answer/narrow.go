package answer

import (
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Narrow expresses a fit.Narrowing as ready-to-run query arguments: the query's
// own arguments with the grain, filters (IN, or NOT_IN for Exclude), dates,
// dimensions or limit changed. The
// caller's token_budget is kept, so the narrower query is answered within the
// same budget its token_estimate was computed for.
func Narrow(q *query.Query, n fit.Narrowing) *query.Args {
	a := q.Args()
	if n.Grain != "" {
		a.TimeGranularity = string(n.Grain)
		if c := q.Compare; c != nil && n.Grain != q.Grain {
			// The window a mode picks depends on the grain (whole weeks for
			// weekly): the narrower answer was priced on this one.
			a.Compare = &query.CompareArg{Window: &query.DateRange{Start: c.Start.Format(time.DateOnly), End: c.End.Format(time.DateOnly)}}
		}
		if n.Grain == fit.Total {
			// A total has no time column to sort on; the other keys stay
			// (at another grain a sort on the time column holds).
			a.Sort = slices.DeleteFunc(slices.Clone(a.Sort), func(s query.SortArg) bool { return fit.IsTimeColumn(s.Field) })
			if len(a.Sort) == 0 {
				a.Limit = nil
			}
		}
	}
	if n.Field != "" {
		vals := make([]any, len(n.Values))
		for i, v := range n.Values {
			vals[i] = v
		}
		op := query.In
		if n.Exclude {
			op = query.NotIn
		}
		a.Filters = append(slices.Clone(a.Filters), query.FilterArg{Field: n.Field, Operator: string(op), Value: vals})
	}
	if n.Metric != "" {
		a.Filters = append(slices.Clone(a.Filters), query.FilterArg{Field: n.Metric, Operator: string(query.GreaterThan), Value: n.Above})
	}
	if !n.From.IsZero() && !n.To.IsZero() {
		a.DateRange = &query.DateRange{Start: n.From.Format(time.DateOnly), End: n.To.Format(time.DateOnly)}
	}
	if n.Limit > 0 {
		l := n.Limit
		a.Limit = &l
	}
	if n.Dimensions != nil {
		a.Dimensions = n.Dimensions
		// Sort keys on dropped dimensions no longer apply.
		var kept []query.SortArg
		for _, s := range a.Sort {
			if slices.Contains(n.Dimensions, s.Field) || slices.Contains(a.Metrics, s.Field) || q.Compare != nil && derivedOf(a.Metrics, s.Field) {
				kept = append(kept, s)
			}
		}
		a.Sort = kept
		if len(kept) == 0 {
			a.Limit = nil
		}
	}
	return &a
}

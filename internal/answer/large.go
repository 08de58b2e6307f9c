package answer

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Defaults of the size-first path (docs/fit.md, "Large results").
const (
	// DefaultSizeFirstAbove is the number of stored facts a query reads above
	// which the engine counts its rows where they are before fetching any:
	// below it, reading the rows costs less than counting them first, and no
	// result can exceed the rows one call may read (rowbudget's default).
	DefaultSizeFirstAbove = 500_000
	// maxSuggestionRows is the most rows of a coarser grain fetched only to
	// compute a summary's narrower queries (when no grain can fit).
	maxSuggestionRows = 100_000
)

// sizeFirstAbove is the engine's threshold, or the default.
func (e *Engine) sizeFirstAbove() int {
	if e.SizeFirstAbove > 0 {
		return e.SizeFirstAbove
	}
	return DefaultSizeFirstAbove
}

// answerLarge answers q without bringing its rows into memory when they are
// provably too many to fit the budget and the source can count and
// summarize them where they are (source.Sizer): it counts the rows at each
// grain first, fetches only the finest coarser grain that might fit, and
// summarizes the requested grain from aggregates when none does. ok is false
// when q is not such a query (or the source cannot say): the caller then
// fetches its rows as usual.
func (e *Engine) answerLarge(ctx context.Context, q *query.Query, b budget.Budget, opts fit.Options, cov map[string]source.Coverage) (resp *fit.Response, ok bool, err error) {
	sz := source.SizerOf(e.Source)
	if sz == nil || q.Limit > 0 {
		return nil, false, nil
	}
	if facts := factsIn(q, cov); facts <= e.sizeFirstAbove() || facts <= b.Effective {
		return nil, false, nil
	}
	// One large aggregation at a time (per gate place): they share the
	// warehouse's memory limit, which several at once would exhaust for
	// every call, and its CPU, which the other calls need.
	release, err := e.LargeWork.enter(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	grains := fit.Grains[slices.Index(fit.Grains, q.Grain):]
	// The total grain first: its rows are the fewest, and when they cannot
	// fit, no grain can — the others need not be counted.
	total, err := sz.RowCounts(ctx, q, []fit.Grain{fit.Total})
	if err != nil {
		return nil, false, err
	}
	counts := make([]int, len(grains))
	for i := range counts {
		counts[i] = -1
	}
	counts[len(counts)-1] = total[0]
	// Each total row is at most one row per period at the grain asked: when
	// that many might fit, the rows are read as usual.
	if bound := total[0] * periodsIn(q.Grain, q.Start, q.End); mightFit(bound, opts) {
		return nil, false, nil
	}
	var totals *fit.Table
	if mightFit(total[0], opts) && len(grains) > 1 {
		// Few enough total rows to fetch. When their CSV is clearly over the
		// budget, no finer grain (more rows, each with a time label more)
		// fits either, and nothing else needs counting.
		qt := *q
		qt.Grain = fit.Total
		if totals, err = e.Source.Query(ctx, &qt); err != nil {
			return nil, false, err
		}
		if !fit.ClearlyOver(totals, opts) {
			finer, err := sz.RowCounts(ctx, q, grains[:len(grains)-1])
			if err != nil {
				return nil, false, err
			}
			copy(counts, finer)
		}
	}
	if counts[0] >= 0 && mightFit(counts[0], opts) {
		return nil, false, nil // the usual path: its rows are few enough to try
	}
	rows := max(counts[0], 0) // 0: not counted; the aggregates count them
	removed, err := sz.Removed(ctx, q)
	if err != nil {
		return nil, false, err
	}
	// The finest coarser grain that might fit, else the coarsest, if small
	// enough to fetch for the summary's narrower queries.
	var coarseGrain fit.Grain
	for i := len(grains) - 1; i >= 1; i-- {
		if fit.SkipsGrain(grains[i], q.Start, q.End, removed.Columns) {
			continue
		}
		if counts[i] >= 0 && (mightFit(counts[i], opts) || coarseGrain == "" && counts[i] <= maxSuggestionRows) {
			coarseGrain = grains[i]
		}
	}
	var coarse *fit.Table
	if coarseGrain == fit.Total && totals != nil {
		coarse = totals
	} else if coarseGrain != "" {
		qc := *q
		qc.Grain = coarseGrain
		if coarse, err = e.Source.Query(ctx, &qc); err != nil {
			return nil, false, err
		}
	}
	schema := removed.Select(nil)
	large := &fit.Large{Schema: schema, Rows: rows, Removed: removed,
		Aggregates: func(ctx context.Context) (*fit.Aggregates, error) { return sz.Aggregates(ctx, q) }}
	diagnosed := coarse
	if diagnosed == nil {
		diagnosed = schema
	}
	notices, withData := e.diagnose(ctx, q, diagnosed, cov)
	if coarse == nil {
		// No rows in hand to say more from, but those step 1 removes.
		notices = append(fractionFilters(q), unattributedDelivery(q, removed)...)
	}
	schema.Notices = append(schema.Notices, notices...)
	if coarse != nil {
		coarse.Notices = append(coarse.Notices, notices...)
	}
	e.zeroPartitions(ctx, q, nil, withData, &opts.Partitions)
	resp, err = fit.FitLarge(ctx, large, coarse, opts)
	if errors.Is(err, fit.ErrNotLarge) {
		return nil, false, nil
	}
	return resp, err == nil, err
}

// factsIn estimates the facts q reads from its accounts' coverage: each
// account's facts spread evenly over its span of dates, for the days of the
// span in q's range (an overestimate for an account paused a while). With no
// coverage it says nothing (0): the rows are read as usual.
func factsIn(q *query.Query, cov map[string]source.Coverage) int {
	total := 0.0
	for _, a := range q.Accounts {
		c, ok := cov[a.AccountID]
		if !ok || !c.Overlaps(q.Start, q.End) {
			continue
		}
		span := c.Last.Sub(c.First).Hours()/24 + 1
		from, to := max(c.First.Unix(), q.Start.Unix()), min(c.Last.Unix(), q.End.Unix())
		days := float64(to-from)/86400 + 1
		total += float64(c.Facts) * days / span
	}
	return int(total)
}

// periodsIn is how many periods of grain g the range start…end has (1 at
// total grain).
func periodsIn(g fit.Grain, start, end time.Time) int {
	seen := map[int]bool{}
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		switch g {
		case fit.Daily:
			seen[int(d.Unix()/86400)] = true
		case fit.Weekly:
			seen[int(d.AddDate(0, 0, -(int(d.Weekday())+6)%7).Unix()/86400)] = true
		case fit.Monthly:
			seen[d.Year()*12+int(d.Month())] = true
		case fit.Quarterly:
			seen[d.Year()*4+(int(d.Month())-1)/3] = true
		default:
			return 1
		}
	}
	return max(1, len(seen))
}

// mightFit says rows rows might fit the budget: each costs at least a token,
// and a line where the client counts lines.
func mightFit(rows int, opts fit.Options) bool {
	return rows <= opts.Budget && (opts.MaxLines == 0 || rows+1 <= opts.MaxLines)
}

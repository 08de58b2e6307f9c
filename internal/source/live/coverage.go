package live

import (
	"reflect"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// coverage is what a staged warehouse holds, and so which queries it answers
// with exactly the numbers a fresh fetch would give. It errs on the side of
// fetching again: a query it does not cover for sure is never answered from
// it.
type coverage struct {
	accounts   map[string]bool
	start, end time.Time
	// grain of the staged facts: days answer every grain and any dates inside
	// the range; coarser rows only their own grain or the total, over the same
	// range.
	grain fit.Grain
	// shape is the fetch's shape: its dimensions and the fields it filters
	// on, but the account's own (those come from the account list). The
	// connectors choose the level, breakdowns and report (Google's resource)
	// from it, so only a query of the same shape gets the same rows.
	shape []string
	// filters are the dimension filters fetched with (a connector may send
	// them to the platform): a covered query has each of them.
	filters []query.Filter
	// metrics fetched, with the parts of the ratios among them.
	metrics map[string]bool
	// reach staged for every account.
	reach []duckdb.ReachNeed
}

// newCoverage is what fetching q (and the reach) staged.
func newCoverage(q *query.Query, reach []duckdb.ReachNeed) *coverage {
	c := &coverage{accounts: map[string]bool{}, start: q.Start, end: q.End, grain: q.Grain, shape: shapeOf(q), metrics: map[string]bool{}, reach: reach}
	for _, a := range q.Accounts {
		c.accounts[a.AccountID] = true
	}
	for _, f := range q.Filters {
		if !f.Metric {
			c.filters = append(c.filters, f)
		}
	}
	for _, m := range usedMetrics(q) {
		c.metrics[m] = true
		f := catalog.MustLookup(m)
		for _, part := range []string{f.Numerator, f.Denominator} {
			if part != "" {
				c.metrics[part] = true
			}
		}
	}
	return c
}

// answers says whether the staged rows answer q exactly: its accounts, dates
// and grain, its shape, at least the filters fetched with, every metric it
// reads, and the reach its SQL reads.
func (c *coverage) answers(q *query.Query) bool {
	for _, a := range q.Accounts {
		if !c.accounts[a.AccountID] {
			return false
		}
	}
	if !c.datesAndGrain(q) || !slices.Equal(shapeOf(q), c.shape) {
		return false
	}
	for _, f := range c.filters {
		if !slices.ContainsFunc(q.Filters, func(g query.Filter) bool { return reflect.DeepEqual(f, g) }) {
			return false
		}
	}
	used := usedMetrics(q)
	for _, m := range used {
		if !c.hasMetric(m) {
			return false
		}
	}
	need := duckdb.ReachNeeded(q, used)
	return need == nil || slices.ContainsFunc(c.reach, func(r duckdb.ReachNeed) bool {
		return r.Level == need.Level && r.Grain == need.Grain && !need.First.Before(r.First) && !need.Last.After(r.Last)
	})
}

func (c *coverage) datesAndGrain(q *query.Query) bool {
	if c.grain == fit.Daily {
		return !q.Start.Before(c.start) && !q.End.After(c.end)
	}
	return q.Start.Equal(c.start) && q.End.Equal(c.end) && (q.Grain == c.grain || q.Grain == fit.Total)
}

// hasMetric says whether metric m can be computed from the staged facts:
// fetched, or a ratio of fetched parts. Reach itself comes from the staged
// reach, which answers checks apart.
func (c *coverage) hasMetric(m string) bool {
	if c.metrics[m] {
		return true
	}
	f := catalog.MustLookup(m)
	switch {
	case f.Distinct != "":
		return true
	case f.Aggregation == catalog.Ratio || f.Aggregation == catalog.NonAdditive:
		return f.Numerator != "" && f.Denominator != "" && c.hasMetric(f.Numerator) && c.hasMetric(f.Denominator)
	}
	return false
}

// shapeOf is q's dimensions and dimension filter fields that are not the
// account's own, sorted, once each.
func shapeOf(q *query.Query) []string {
	var out []string
	add := func(name string) {
		if catalog.MustLookup(name).Level != catalog.LevelAccount && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, d := range q.Dimensions {
		add(d)
	}
	for _, f := range q.Filters {
		if !f.Metric {
			add(f.Field)
		}
	}
	slices.Sort(out)
	return out
}

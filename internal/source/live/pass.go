package live

import (
	"slices"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// pass is what one fetch asks the connectors for. Reach is never summed, so
// an answer coarsened to a weekly, monthly or total grain needs the reach the
// platform computed for those periods: within a tool call the pass asks for
// it beside the rows, in parallel, and the pipeline's re-query at a coarser
// grain then makes no request.
type pass struct {
	// facts is the query whose plan the connectors fetch: facts at its
	// grain, names, and the reach it reads.
	facts *query.Query
	// reach are the further queries whose reach alone is fetched (a plan
	// with ReachOnly), each with the reach it reads.
	reach []reachStep
}

type reachStep struct {
	q    *query.Query
	need duckdb.ReachNeed
}

// planPass is the fetch for q. Alone (no scope), exactly q. Within a call,
// the finest grain the pipeline may need — daily for a weekly query, since
// ISO weeks do not roll up into months but days do — and the reach at q's
// grain and every coarser one (fit.Grains), each fetched once.
func planPass(q *query.Query, scoped bool) pass {
	if !scoped {
		return pass{facts: wholeSets(q)}
	}
	facts := *wholeSets(q)
	if q.Grain == fit.Weekly {
		facts.Grain = fit.Daily
	}
	p := pass{facts: &facts}
	used := usedMetrics(q)
	var have []duckdb.ReachNeed
	if n := duckdb.ReachNeeded(&facts, used); n != nil {
		have = append(have, *n)
	}
	i := slices.Index(fit.Grains, q.Grain)
	if i < 0 {
		return p // an unknown grain: the connector says so
	}
	for _, g := range fit.Grains[i:] {
		at := *q
		at.Grain = g
		n := duckdb.ReachNeeded(&at, used)
		if n == nil || slices.Contains(have, *n) {
			continue
		}
		have = append(have, *n)
		p.reach = append(p.reach, reachStep{q: &at, need: *n})
	}
	return p
}

// reachFetched is the reach the pass staged for every account: what Fetch
// read, and each step no platform that reports reach missed.
func (p pass) reachFetched(missing []bool) []duckdb.ReachNeed {
	var out []duckdb.ReachNeed
	if n := duckdb.ReachNeeded(p.facts, usedMetrics(p.facts)); n != nil {
		out = append(out, *n)
	}
	for i, s := range p.reach {
		if !missing[i] {
			out = append(out, s.need)
		}
	}
	return out
}

// usedMetrics are the metrics q reads: its own and those its filters test.
func usedMetrics(q *query.Query) []string {
	used := slices.Clone(q.Metrics)
	for _, f := range q.Filters {
		if f.Metric && !slices.Contains(used, f.Field) {
			used = append(used, f.Field)
		}
	}
	return used
}

// reportsReach says whether the platform reports reach at all: a Google
// account has none to fetch.
func reportsReach(platform string) bool {
	return catalog.MustLookup("reach").HasPlatform(platform)
}

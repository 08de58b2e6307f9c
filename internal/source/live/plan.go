package live

import (
	"fmt"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// Plan is what one fetch asks of every account of one platform, computed
// once by the live source (PlanFor) from a query — or, for a sync, from what
// the warehouse stores — so that a connector only maps it onto its API: which
// report, which fields, which breakdowns, which requests. Every rule that is
// not about an API (the level a dimension needs, a per-campaign set read per
// campaign, the metric parts a ratio needs, the reach the warehouse reads)
// is here, once.
type Plan struct {
	// Platform is the connector's platform (catalog.MetaAds, …).
	Platform string
	// Start and End are the days asked (inclusive).
	Start, End time.Time
	// Level is the finest object level rows must be at: account, campaign,
	// ad set or ad (catalog.LevelAccount … LevelAd). A breakdown set stored
	// per campaign is read per campaign whatever the query's level, so that
	// what no campaign holds stays out as it does in the warehouse.
	Level catalog.Level
	// ObjectLevel is the finest object level the query's dimensions and
	// filters name: Level before a per-campaign set raises it. A platform
	// whose coarser report holds exactly the delivery a set's campaigns
	// would, and more that they cannot (Meta's level=account also counts
	// deleted campaigns), may read the set there: what no campaign holds is
	// told from the account's delivery all the same (unattributed.go).
	ObjectLevel catalog.Level
	// Measures are the stored (Sum) metrics to fetch, in catalog Measure
	// order: those the query reads and the parts of its ratios, never empty
	// (rows must exist for groups to exist: impressions, or the set's first
	// metric when the set holds only some).
	Measures []string
	// Set is the breakdown set the rows are of (catalog.BreakdownSet; its Key
	// is catalog.Delivery for plain delivery).
	Set catalog.BreakdownSet
	// Breakdowns are the breakdown dimensions rows must carry, in the order
	// of Set.Dimensions.
	Breakdowns []string
	// Dimensions are every dimension the query groups by or filters on.
	Dimensions []string
	// Filters are the query's dimension filters. A connector may send one to
	// its API only to save data, and only in a form that keeps every row the
	// filter keeps: the warehouse SQL applies every filter to the staged rows.
	Filters []query.Filter
	// Grain is the coarsest a row may be: every row lies within one period
	// of it (Daily, Weekly, Monthly or Total; never Quarterly, which the
	// warehouse rolls up from months). A connector may fetch finer rows — a
	// platform without ISO weeks fetches days for Weekly.
	Grain fit.Grain
	// Window is the attribution window asked ("" for the accounts' own), and
	// Conversions says the query reads conversions (so a connector that must
	// name a window to count them can).
	Window      string
	Conversions bool
	// Reach is the reach the warehouse reads from these rows, nil for none:
	// it is never summed, so every value is one the platform computed for
	// exactly that period.
	Reach *Reach
	// ReachOnly asks for Reach alone: no facts, no names (a coarser grain's
	// reach fetched in the same pass as finer rows, see pass).
	ReachOnly bool
}

// Reach is the reach a plan fetches: per account or campaign (Level), per
// whole period of Grain whose start lies in [First, Last].
type Reach struct {
	Level       catalog.Level
	Grain       fit.Grain
	First, Last time.Time
}

// Uses says whether the query groups by or filters on dimension name.
func (p *Plan) Uses(name string) bool { return slices.Contains(p.Dimensions, name) }

// PlanFor is the plan of q for platform's accounts. An error is a query the
// plan cannot be made for (a reversed range, an unknown field or grain): the
// normalizer refuses these first, so it is a bug, not a user's mistake.
func PlanFor(q *query.Query, platform string) (*Plan, error) {
	if q.End.Before(q.Start) {
		return nil, fmt.Errorf("date range %s … %s is reversed", q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly))
	}
	p := &Plan{Platform: platform, Start: q.Start, End: q.End, Set: deliverySet,
		Window: q.AttributionWindow, Conversions: q.UsesConversions()}
	if s, ok := q.BreakdownSet(platform); ok {
		p.Set = s
	} else if bs := q.Breakdowns(); len(bs) > 0 {
		return nil, fmt.Errorf("no breakdown set of %s holds %v together", platform, bs)
	}
	if err := p.planDimensions(q); err != nil {
		return nil, err
	}
	used := usedMetrics(q)
	if err := p.planMeasures(used); err != nil {
		return nil, err
	}
	switch q.Grain {
	case fit.Daily, fit.Weekly, fit.Monthly, fit.Total:
		p.Grain = q.Grain
	case fit.Quarterly:
		p.Grain = fit.Monthly
	default:
		return nil, fmt.Errorf("unknown grain %q", q.Grain)
	}
	if need := duckdb.ReachNeeded(q, used); need != nil {
		p.Reach = &Reach{Level: catalog.LevelAccount, Grain: need.Grain, First: need.First, Last: need.Last}
		if need.Level == "campaign" {
			p.Reach.Level = catalog.LevelCampaign
		}
	}
	return p, nil
}

// planDimensions sets the level, the breakdowns, the dimensions and the
// filters.
func (p *Plan) planDimensions(q *query.Query) error {
	use := func(name string) error {
		f, ok := catalog.Lookup(name)
		if !ok || f.IsMetric() {
			return fmt.Errorf("%q is not a catalog dimension", name)
		}
		if f.Level <= catalog.LevelAd {
			p.Level = max(p.Level, f.Level)
		}
		if !slices.Contains(p.Dimensions, name) {
			p.Dimensions = append(p.Dimensions, name)
		}
		return nil
	}
	for _, d := range q.Dimensions {
		if err := use(d); err != nil {
			return err
		}
	}
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		if err := use(f.Field); err != nil {
			return err
		}
		p.Filters = append(p.Filters, f)
	}
	for _, d := range p.Set.Dimensions {
		if p.Uses(d) {
			p.Breakdowns = append(p.Breakdowns, d)
		}
	}
	p.ObjectLevel = p.Level
	if p.Set.PerObjectReports() {
		// Its rows are campaigns' or ad groups' reports
		// (catalog.BreakdownSet.Level): fetched as stored, so that what
		// they leave out (unattributed) is what a warehouse's leave out.
		p.Level = max(p.Level, p.Set.Level)
	}
	return nil
}

// planMeasures sets the stored metrics behind the metrics used (the query's
// and its filters').
func (p *Plan) planMeasures(used []string) error {
	need := map[string]bool{}
	for _, m := range used {
		f, ok := catalog.Lookup(m)
		if !ok || !f.IsMetric() {
			return fmt.Errorf("%q is not a catalog metric", m)
		}
		switch f.Aggregation {
		case catalog.Sum:
			need[m] = true
		case catalog.Ratio, catalog.NonAdditive:
			need[f.Numerator], need[f.Denominator] = true, true
		}
	}
	for _, f := range catalog.Measures() {
		if need[f.Name] && p.Set.HasMetric(f.Name) {
			p.Measures = append(p.Measures, f.Name)
		}
	}
	if len(p.Measures) == 0 {
		first := "impressions"
		if len(p.Set.Metrics) > 0 {
			first = p.Set.Metrics[0]
		}
		p.Measures = []string{first}
	}
	return nil
}

var deliverySet, _ = catalog.BreakdownSetByKey(catalog.Delivery)

// reachOnly is the plan of a pass's reach step: Reach alone.
func reachOnly(q *query.Query, platform string) (*Plan, error) {
	p, err := PlanFor(q, platform)
	if err != nil || p.Reach == nil {
		return nil, err
	}
	p.ReachOnly = true
	return p, nil
}

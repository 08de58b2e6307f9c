package demo

import (
	"math"
	"slices"
	"time"
)

// plan is the whole dataset's structure — accounts, campaigns, ad sets, ads and
// their schedules and performance parameters — built sequentially (it is small) so
// that facts can then be generated per account in parallel.
type plan struct {
	cfg      Config
	dates    []time.Time // dates[d] is day d of the data; dates[0] = Anchor − Days
	accounts []*accountPlan
	ids      map[string]bool // every object ID drawn so far, to keep them unique
	estimate int64           // expected fact rows, for progress
}

type accountPlan struct {
	// key identifies the account in the paths of its random streams (streamKey).
	key       uint64
	spec      *accountSpec
	campaigns []*campaignPlan
	// lastDay is the last day index the account delivers (closed accounts stop early).
	lastDay int
	// artifactRate is the share of its fact rows that are dimension artifacts.
	artifactRate float64
	// reachU: a period's reach is max + (sum − max) × reachU of its daily reach
	// (shared by the account and its campaigns, which keeps account ≥ campaign and
	// month ≥ week-within-it). reachV: the same for an account's day from its
	// campaigns' days (audience overlap between campaigns).
	reachU, reachV float64
}

type campaignPlan struct {
	Campaign
	idx         int // position in the account's full (Scale 1) campaign list
	first, last int // delivery day indices, inclusive
	// startsInside: the campaign launched inside the data, so it ramps up.
	startsInside bool
	budget       float64   // daily budget at ordinary demand, in the account's currency
	perf         profile   // in USD; money converted at emission
	freq         float64   // typical daily frequency, for reach
	aud          *audience // who it reaches, for its breakdown rows
	adsets       []*adsetPlan
}

type adsetPlan struct {
	AdSet
	weight      float64
	first, last int
	countries   []string
	cweights    []float64
	ads         []*adPlan
}

type adPlan struct {
	Ad
	weight      float64
	first, last int
	pub         *publisher
}

// newPlan builds the structure for a normalized cfg.
func newPlan(cfg Config) *plan {
	p := &plan{cfg: cfg, ids: map[string]bool{}}
	start := cfg.Anchor.AddDate(0, 0, -cfg.Days)
	p.dates = make([]time.Time, cfg.Days)
	for d := range p.dates {
		p.dates[d] = start.AddDate(0, 0, d)
	}
	taken := map[string]bool{} // account IDs
	for i := range accountSpecs {
		taken[accountSpecs[i].AccountID] = true
	}
	for k := 1; k <= copies(cfg.Scale); k++ {
		for i := range accountSpecs {
			spec := &accountSpecs[i]
			if k > 1 {
				spec = replicaSpec(i, k, taken)
			}
			p.accounts = append(p.accounts, p.buildAccount(spec, streamKey(i, k), copyFraction(cfg.Scale, k)))
		}
	}
	return p
}

// dayIndex returns t's day index (possibly outside [0, Days)).
func (p *plan) dayIndex(t time.Time) int {
	return int(t.Sub(p.dates[0]) / day)
}

// date returns the date of day index d (possibly outside the data).
func (p *plan) date(d int) time.Time { return p.dates[0].AddDate(0, 0, d) }

// buildAccount builds the account's full campaign list, then keeps the fraction
// frac of it (the Scale, for the original accounts below Scale 1).
func (p *plan) buildAccount(spec *accountSpec, key uint64, frac float64) *accountPlan {
	r := newRand(p.cfg.Seed, tagAccount, key)
	a := &accountPlan{key: key, spec: spec, lastDay: p.cfg.Days - 1,
		artifactRate: between(r, 0.012, 0.026),
		reachU:       between(r, 0.22, 0.38),
		reachV:       between(r, 0.55, 0.8)}
	if spec.closed {
		a.lastDay = p.cfg.Days - 1 - p.cfg.Days/5
	}
	ids := newRand(p.cfg.Seed, tagIDs, key)
	full := make([]*campaignPlan, spec.campaigns)
	names := map[string]int{}
	for i := range full {
		full[i] = p.buildCampaign(a, i, ids, names)
	}
	// A smaller fraction keeps a random subset (always the staple campaign 0), in order.
	keep := max(1, int(math.Round(float64(len(full))*frac)))
	chosen := []int{0}
	perm := newRand(p.cfg.Seed, tagSubset, key).Perm(len(full) - 1)
	for _, j := range perm[:keep-1] {
		chosen = append(chosen, j+1)
	}
	slices.Sort(chosen)
	var rows, breakdowns float64
	for _, j := range chosen {
		a.campaigns = append(a.campaigns, full[j])
		rows += full[j].expectedRows(spec.fx)
		breakdowns += full[j].expectedBreakdownRows(spec)
	}
	p.estimate += int64(rows*(1+a.artifactRate) + breakdowns)
	return a
}

package query

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Breakdowns are the breakdown dimensions the query reads: those among its
// dimensions and dimension filters that a catalog.BreakdownSet carries.
func (q *Query) Breakdowns() []string {
	var out []string
	add := func(name string) {
		if catalog.IsBreakdown(name) && !slices.Contains(out, name) {
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
	return out
}

// AccountPlatforms are the platforms of the query's accounts, in catalog order.
func (q *Query) AccountPlatforms() []string {
	var out []string
	for _, p := range catalog.AllPlatforms {
		if slices.ContainsFunc(q.Accounts, func(a ads.Account) bool { return a.Platform == p }) {
			out = append(out, p)
		}
	}
	return out
}

// BreakdownSet is the set the query reads on platform (catalog.SetFor its
// breakdowns); normalization refuses a query one of its platforms has no set
// for, so it is found for every platform of the accounts.
func (q *Query) BreakdownSet(platform string) (catalog.BreakdownSet, bool) {
	return catalog.SetFor(platform, q.Breakdowns())
}

// SetRead is one breakdown set a query reads: its key (facts.breakdown),
// and the platforms whose rows of it are read when a platform of the query
// stores that set too but reads another (Meta stores delivery and reads
// device from device_platform, Google reads device from delivery): reading
// every platform's rows there would count Meta twice. Platforms is nil when
// every row of the set is read.
type SetRead struct {
	Key       string
	Platforms []string
}

// SetReads are the sets the query reads on its accounts' platforms, sorted
// by key: what a warehouse filters facts by. Delivery alone for a query
// with no accounts.
func (q *Query) SetReads() []SetRead {
	chosen := map[string]string{} // platform → key
	var keys []string
	for _, p := range q.AccountPlatforms() {
		if s, ok := q.BreakdownSet(p); ok {
			chosen[p] = s.Key
			if !slices.Contains(keys, s.Key) {
				keys = append(keys, s.Key)
			}
		}
	}
	if len(keys) == 0 {
		return []SetRead{{Key: catalog.Delivery}}
	}
	sort.Strings(keys)
	out := make([]SetRead, len(keys))
	for i, k := range keys {
		out[i].Key = k
		var readers []string
		shared := false
		for _, p := range q.AccountPlatforms() {
			switch {
			case chosen[p] == k:
				readers = append(readers, p)
			case slices.ContainsFunc(catalog.PlatformSets(p), func(s catalog.BreakdownSet) bool { return s.Key == k }):
				shared = true
			}
		}
		if shared {
			out[i].Platforms = readers
		}
	}
	return out
}

// breakdowns refuses a query whose breakdowns no set of one of its platforms
// holds together, or that asks a set for what its rows do not hold: an ad
// set or ad with a set stored per campaign, or a metric such as spend with
// conversion_action. Each problem names what works instead. Never a silently
// partial answer: Meta's own placement reports lost leads that way.
func (n *normalizer) breakdowns() {
	q := n.q
	dims := q.Breakdowns()
	if len(dims) == 0 || len(q.Accounts) == 0 {
		return
	}
	var chosen []catalog.BreakdownSet
	for _, p := range q.AccountPlatforms() {
		plat, _ := catalog.PlatformByName(p)
		s, ok := q.BreakdownSet(p)
		if ok {
			if !slices.ContainsFunc(chosen, func(c catalog.BreakdownSet) bool { return c.Key == s.Key }) {
				chosen = append(chosen, s)
			}
			continue
		}
		var missing []string
		for _, d := range dims {
			if f, _ := catalog.Lookup(d); !f.HasPlatform(p) {
				missing = append(missing, d)
			}
		}
		others := platformsHolding(dims)
		if len(missing) > 0 {
			fix := fmt.Sprintf("drop %s", strings.Join(missing, " and "))
			if len(others) > 0 {
				fix += fmt.Sprintf(", or ask only accounts of %s (platforms: %s)", strings.Join(others, ", "), jsonList(others))
			}
			n.problem(Problem{Field: "dimensions", Value: strings.Join(dims, ", "),
				Problem: fmt.Sprintf("%s does not report %s", plat.DisplayName, strings.Join(missing, " and ")), Fix: fix})
			continue
		}
		n.problem(Problem{Field: "dimensions", Value: strings.Join(dims, ", "),
			Problem: fmt.Sprintf("%s cannot combine %s in one report", plat.DisplayName, strings.Join(dims, " with ")),
			Fix:     fmt.Sprintf("ask one group of breakdowns per query; on %s these go together: %s", plat.DisplayName, catalog.SetLabels(p))})
	}
	for _, s := range chosen {
		n.setLevel(s)
		n.setMetrics(s)
	}
}

// platformsHolding are the platforms with a set holding every one of dims.
func platformsHolding(dims []string) []string {
	var out []string
	for _, p := range catalog.AllPlatforms {
		if _, ok := catalog.SetFor(p, dims); ok {
			out = append(out, p)
		}
	}
	return out
}

// setLevel refuses fields finer than the level a set is stored at: ad set
// and ad fields with a set kept per campaign, ad fields with one kept per ad
// group (Google's countries).
func (n *normalizer) setLevel(s catalog.BreakdownSet) {
	var finer []string
	check := func(name string) {
		if f, ok := catalog.Lookup(name); ok && f.Level > s.Level && f.Level != catalog.LevelBreakdown && !slices.Contains(finer, name) {
			finer = append(finer, name)
		}
	}
	for _, d := range n.q.Dimensions {
		check(d)
	}
	for _, f := range n.q.Filters {
		if !f.Metric {
			check(f.Field)
		}
	}
	if len(finer) == 0 {
		return
	}
	kept, finest, ask := "per campaign, not per ad set or ad", "ad sets and ads", "campaign_name or campaign_id"
	if s.Level == catalog.LevelAdSet {
		kept, finest, ask = "per ad set (ad group), not per ad", "ads", "adset_name or adset_id, campaign_name"
	}
	n.problem(Problem{Field: "dimensions", Value: strings.Join(finer, ", "),
		Problem: fmt.Sprintf("%s are kept %s: %s cannot be combined with them", breakdownNames(s), kept, strings.Join(finer, " and ")),
		Fix:     fmt.Sprintf("ask by %s (or account) with these breakdowns, or drop them to see %s", ask, finest)})
}

// setMetrics refuses metrics a set's rows do not hold.
func (n *normalizer) setMetrics(s catalog.BreakdownSet) {
	if s.Metrics == nil {
		return
	}
	var bad []string
	for _, m := range n.q.Metrics {
		if !s.HasMetric(m) {
			bad = append(bad, m)
		}
	}
	for _, f := range n.q.Filters {
		if f.Metric && !s.HasMetric(metricOf(f.Field)) && !slices.Contains(bad, f.Field) {
			bad = append(bad, f.Field)
		}
	}
	if len(bad) == 0 {
		return
	}
	n.problem(Problem{Field: "metrics", Value: strings.Join(bad, ", "),
		Problem: fmt.Sprintf("%s split only %s: the platforms report no %s per %s", breakdownNames(s), strings.Join(s.Metrics, " and "), strings.Join(bad, ", "), breakdownNames(s)),
		Valid:   s.Metrics,
		Fix:     fmt.Sprintf("ask %s with %s, and the other metrics in a query without it", strings.Join(s.Metrics, " and "), breakdownNames(s))})
}

// breakdownNames names a set's dimensions in a message ("age, gender").
func breakdownNames(s catalog.BreakdownSet) string { return strings.Join(s.Dimensions, ", ") }

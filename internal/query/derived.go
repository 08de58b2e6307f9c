package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Suffixes of the derived columns a period-over-period answer adds for each
// queried metric m: m_compare (its value in the comparison window), m_change
// (current − comparison) and m_change_pct (the change as a percentage of the
// comparison value). Sort keys and metric filters may name them when compare
// is set; they are stored by these names in SortKey.Field and Filter.Field.
const (
	SuffixCompare   = fit.CompareSuffix
	SuffixChange    = fit.ChangeSuffix
	SuffixChangePct = fit.ChangePctSuffix
)

// derivedSuffixes are the suffixes in the order SplitDerived tries them (the
// longer _change_pct before _change).
var derivedSuffixes = []string{SuffixChangePct, SuffixChange, SuffixCompare}

// DerivedColumns are the derived columns of metric m, in the order an answer
// shows them.
func DerivedColumns(m string) []string {
	return []string{m + SuffixCompare, m + SuffixChange, m + SuffixChangePct}
}

// SplitDerived reports whether name is the canonical name of a derived column
// (spend_change) and returns its metric (spend) and suffix (SuffixChange). The
// answer layer uses it to tell the sort keys and filters it applies after
// joining the two windows from those the source runs.
func SplitDerived(name string) (metric, suffix string, ok bool) {
	for _, s := range derivedSuffixes {
		base, found := strings.CutSuffix(name, s)
		if !found {
			continue
		}
		if f, ok := catalog.Lookup(base); ok && f.IsMetric() {
			return base, s, true
		}
	}
	return "", "", false
}

// derivedSpellings are the folded suffixes AI clients write for each derived
// column, longest match first: "spend % change", "Spend Delta", "cost_prev".
var derivedSpellings = []struct{ folded, suffix string }{
	{"changepct", SuffixChangePct}, {"changepercent", SuffixChangePct},
	{"pctchange", SuffixChangePct}, {"percentchange", SuffixChangePct},
	{"change", SuffixChange}, {"delta", SuffixChange}, {"diff", SuffixChange},
	{"compare", SuffixCompare}, {"comparison", SuffixCompare}, {"previous", SuffixCompare}, {"prev", SuffixCompare},
}

// resolveDerived reads name as a derived column of a catalog metric, forgiving
// case, separators, "%" for pct and the metric's own synonyms ("Cost Change
// %" → spend_change_pct). It returns the canonical name and its metric.
func resolveDerived(name string) (canonical, metric string, ok bool) {
	k := foldName(strings.ReplaceAll(name, "%", "pct"))
	for _, s := range derivedSpellings {
		base, found := strings.CutSuffix(k, s.folded)
		if !found || base == "" {
			continue
		}
		if f, _, ok := catalog.Resolve(base); ok && f.IsMetric() {
			return f.Name + s.suffix, f.Name, true
		}
	}
	return "", "", false
}

// derivedAvailable reports whether the derived column canonical (of metric)
// can be sorted or filtered on: compare is set and the metric is queried.
// Otherwise it records the problem at field, saying how to fix it.
func (n *normalizer) derivedAvailable(field, given, canonical, metric string) bool {
	if !n.comparing {
		n.problem(Problem{Field: field, Value: given,
			Problem: fmt.Sprintf("%s is a period-over-period column: it exists only when compare is set", canonical),
			Fix:     `add compare ("previous_period", "previous_year" or {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}), or use a column of the result`})
		return false
	}
	if !slices.Contains(n.q.Metrics, metric) {
		n.problem(Problem{Field: field, Value: given,
			Problem: fmt.Sprintf("%s compares %s, which is not among the metrics", canonical, metric),
			Fix:     fmt.Sprintf("add %s to metrics", metric)})
		return false
	}
	return true
}

// metricOf is the catalog metric a sort or filter field is about: the field
// itself, or the metric of a derived column.
func metricOf(field string) string {
	if m, _, ok := SplitDerived(field); ok {
		return m
	}
	return field
}

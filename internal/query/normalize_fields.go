package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// timeWords are what AI clients put in dimensions when they mean a time grain,
// folded, with the grain each implies ("" when it implies none adsmcp has).
var timeWords = map[string]fit.Grain{
	"date": fit.Daily, "dates": fit.Daily, "day": fit.Daily, "days": fit.Daily, "daily": fit.Daily,
	"datestart": fit.Daily, "datestop": fit.Daily, "dateend": fit.Daily, "segmentsdate": fit.Daily,
	"reportingstarts": fit.Daily, "reportingends": fit.Daily, "stattimeday": fit.Daily,
	"datetime": fit.Daily, "timestamp": fit.Daily, "time": fit.Daily, "dt": fit.Daily,
	"week": fit.Weekly, "weeks": fit.Weekly, "weekly": fit.Weekly, "isoweek": fit.Weekly,
	"segmentsweek": fit.Weekly, "weekstart": fit.Weekly,
	"month": fit.Monthly, "months": fit.Monthly, "monthly": fit.Monthly, "segmentsmonth": fit.Monthly,
	"yearmonth": fit.Monthly, "quarter": fit.Quarterly, "quarters": fit.Quarterly, "quarterly": fit.Quarterly,
	"segmentsquarter": fit.Quarterly, "yearquarter": fit.Quarterly,
	"year": "", "years": "", "yearly": "", "segmentsyear": "",
	"hour": "", "hourofday": "", "stattimehour": "", "dayofweek": "", "segmentsdayofweek": "",
	"timeperiod": "", "period": "", "timeincrement": "",
}

// IsTimeWord reports whether name, used as a field, means time rather than a field.
func IsTimeWord(name string) bool {
	_, ok := timeWord(name)
	return ok
}

// timeWord looks name up among timeWords, folded, also without the API resource
// prefixes of the platforms' query languages ("insights.date_start").
func timeWord(name string) (fit.Grain, bool) {
	k := foldName(name)
	if g, ok := timeWords[k]; ok {
		return g, true
	}
	for _, prefix := range []string{"segments", "metrics", "insights"} {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" {
			g, ok := timeWords[rest]
			return g, ok
		}
	}
	return "", false
}

// fields resolves dimensions and metrics; it returns the finest grain implied by
// time words found among them ("" when none).
func (n *normalizer) fields(dims, metrics []string) fit.Grain {
	var inferred fit.Grain
	take := func(arg string, i int, s string) {
		field := fmt.Sprintf("%s[%d]", arg, i)
		if g, ok := timeWord(s); ok {
			detail := fmt.Sprintf("Removed %q from %s: time is set by time_granularity, never a field", s, arg)
			if g != "" {
				detail += fmt.Sprintf(" (it implies %s)", g)
				if inferred == "" || finer(g, inferred) {
					inferred = g
				}
			}
			n.change(Change{Type: ChangeDimensionSanitized, Field: arg, From: s, Detail: detail})
			return
		}
		f, exact, ok := catalog.Resolve(s)
		if !ok {
			valid := catalog.Names(catalog.Metric)
			kind := catalog.Metric
			if arg == "dimensions" {
				valid, kind = catalog.Names(catalog.Dimension), catalog.Dimension
			}
			n.problem(Problem{Field: field, Value: s, Problem: "unknown " + string(kind),
				Valid: valid, Closest: catalog.Closest(s, 3), Fix: "use a name from list_fields"})
			return
		}
		if !exact {
			n.change(Change{Type: ChangeFieldRenamed, Field: arg, From: s, To: f.Name,
				Detail: fmt.Sprintf("Field %q read as %q", s, f.Name)})
		}
		dest := &n.q.Metrics
		if f.Kind == catalog.Dimension {
			dest = &n.q.Dimensions
		}
		if (arg == "metrics") != f.IsMetric() {
			to := "dimensions"
			if f.IsMetric() {
				to = "metrics"
			}
			n.change(Change{Type: ChangeFieldMoved, Field: f.Name, From: arg, To: to,
				Detail: fmt.Sprintf("%q is a %s; moved from %s to %s", f.Name, f.Kind, arg, to)})
		}
		if slices.Contains(*dest, f.Name) {
			n.change(Change{Type: ChangeDuplicateRemoved, Field: arg, From: s,
				Detail: fmt.Sprintf("%q given more than once; kept once", f.Name)})
			return
		}
		*dest = append(*dest, f.Name)
	}
	for i, s := range dims {
		take("dimensions", i, s)
	}
	for i, s := range metrics {
		take("metrics", i, s)
	}
	// A metric given among the dimensions was moved and counts: only a query that
	// measures nothing at all is rejected.
	if len(n.q.Metrics) == 0 && !n.hasProblemIn("metrics") {
		p := Problem{Field: "metrics", Problem: "names no metric", Valid: catalog.Names(catalog.Metric),
			Fix: `name at least one metric, e.g. ["spend","clicks"]`}
		switch {
		case metrics == nil:
			p.Problem = "is required"
		case len(metrics) == 0:
			p.Problem = "is an empty array"
		}
		n.problem(p)
	}
	return inferred
}

func (n *normalizer) hasProblemIn(arg string) bool {
	for _, p := range n.problems {
		if strings.HasPrefix(p.Field, arg) {
			return true
		}
	}
	return false
}

func finer(a, b fit.Grain) bool { return slices.Index(fit.Grains, a) < slices.Index(fit.Grains, b) }

// grainAliases forgive the usual names of grains.
var grainAliases = map[string]fit.Grain{
	"daily": fit.Daily, "day": fit.Daily, "days": fit.Daily, "date": fit.Daily, "1": fit.Daily,
	"weekly": fit.Weekly, "week": fit.Weekly, "weeks": fit.Weekly, "7": fit.Weekly, "isoweek": fit.Weekly,
	"monthly": fit.Monthly, "month": fit.Monthly, "months": fit.Monthly,
	"quarterly": fit.Quarterly, "quarter": fit.Quarterly, "quarters": fit.Quarterly,
	"total": fit.Total, "all": fit.Total, "alldays": fit.Total, "none": fit.Total, "summary": fit.Total,
	"aggregate": fit.Total, "overall": fit.Total,
}

// GrainNames are the valid time_granularity values, finest first.
var GrainNames = func() []string {
	var out []string
	for _, g := range fit.Grains {
		out = append(out, string(g))
	}
	return out
}()

func (n *normalizer) granularity(given string, inferred fit.Grain) {
	if given == "" {
		n.q.Grain = fit.Total
		if inferred != "" {
			n.q.Grain = inferred
			n.change(Change{Type: ChangeGranularityInferred, Field: "time_granularity", To: string(inferred),
				Detail: fmt.Sprintf("time_granularity was not given; %s inferred from the time field removed from dimensions", inferred)})
		}
		return
	}
	g, ok := grainAliases[foldName(given)]
	if !ok {
		n.problem(Problem{Field: "time_granularity", Value: given, Problem: "unknown granularity",
			Valid: GrainNames, Closest: closestStrings(given, GrainNames, 2)})
		return
	}
	if string(g) != given {
		n.change(Change{Type: ChangeValueNormalized, Field: "time_granularity", From: given, To: string(g),
			Detail: fmt.Sprintf("time_granularity %q read as %q", given, g)})
	}
	n.q.Grain = g
}

// currency adds the currency dimension when money metrics would otherwise mix
// currencies in one column, so no total ever sums across currencies. A money
// metric used only in a filter counts too: "spend > 100" must not compare a sum
// of dollars and pesos.
func (n *normalizer) currency() {
	if slices.Contains(n.q.Dimensions, "currency") {
		return
	}
	money := false
	for _, m := range n.q.Metrics {
		if involvesMoney(catalog.MustLookup(m)) {
			money = true
		}
	}
	for _, f := range n.q.Filters {
		if f.Metric && involvesMoney(catalog.MustLookup(metricOf(f.Field))) {
			money = true
		}
	}
	curs := n.currencies()
	if money && len(curs) > 1 {
		n.addColumn(Change{Type: ChangeCurrencyColumnAdded, Field: "dimensions", To: "currency",
			Detail: fmt.Sprintf("The accounts use %d currencies (%s); a currency column was added so money is never summed across currencies",
				len(curs), strings.Join(curs, ", "))})
	}
}

// involvesMoney reports whether a metric is money or is computed from money: ROAS
// (conversion_value / spend) is unitless, but summing its parts across currencies
// before dividing would mix currencies all the same.
func involvesMoney(f catalog.Field) bool {
	if f.Unit == catalog.Money {
		return true
	}
	for _, part := range []string{f.Numerator, f.Denominator} {
		if p, ok := catalog.Lookup(part); ok && p.Unit == catalog.Money {
			return true
		}
	}
	return false
}

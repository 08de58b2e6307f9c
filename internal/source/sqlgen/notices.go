package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// notReported are the notices for requested metrics that some queried
// accounts' platforms do not report (link_clicks on Google and TikTok, reach
// and frequency on Google): their cells are empty for those accounts, and a
// total over several accounts counts only the others. Metrics with the same
// missing platforms share one notice. reachAvailable says whether reach and
// frequency are answered at all (when not, another notice explains them).
func notReported(q *query.Query, reachAvailable bool) []fit.Notice {
	type group struct {
		platforms []string
		names     []string // account names, in query order
		metrics   []string
		summed    bool
	}
	var groups []*group
	for _, m := range q.Metrics {
		f := catalog.MustLookup(m)
		if f.Aggregation == catalog.NonAdditive && !reachAvailable {
			continue
		}
		var platforms, names []string
		for _, a := range q.Accounts {
			if f.HasPlatform(a.Platform) {
				continue
			}
			if !slices.Contains(platforms, a.Platform) {
				platforms = append(platforms, a.Platform)
			}
			names = append(names, a.AccountName)
		}
		if len(platforms) == 0 {
			continue
		}
		key := strings.Join(platforms, ",")
		i := slices.IndexFunc(groups, func(g *group) bool { return strings.Join(g.platforms, ",") == key })
		if i < 0 {
			groups = append(groups, &group{platforms: platforms, names: names})
			i = len(groups) - 1
		}
		groups[i].metrics = append(groups[i].metrics, m)
		groups[i].summed = groups[i].summed || f.Aggregation != catalog.NonAdditive
	}
	var out []fit.Notice
	for _, g := range groups {
		verb := " is"
		if len(g.metrics) > 1 {
			verb = " are"
		}
		detail := fmt.Sprintf("%s%s not reported by %s: empty for %s %s", strings.Join(g.metrics, " and "), verb,
			strings.Join(g.platforms, " or "), plural(len(g.names), "the account", "the accounts"), quoteList(g.names))
		if g.summed && len(g.names) < len(q.Accounts) {
			detail += ", and a row or total that also covers other accounts counts only theirs"
		}
		out = append(out, fit.Notice{Type: "metric_not_reported", Detail: detail, Fields: g.metrics})
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quoteList is names quoted and comma-separated.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

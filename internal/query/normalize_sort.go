package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

func (n *normalizer) sort(given []SortArg, limit *int) {
	returned := append(slices.Clone(n.q.Dimensions), n.q.Metrics...)
	if tc := n.q.Grain.TimeColumn(); tc != "" {
		returned = append(returned, tc)
	}
	if n.comparing {
		for _, m := range n.q.Metrics {
			returned = append(returned, DerivedColumns(m)...)
		}
	}
	for i, sa := range given {
		at := fmt.Sprintf("sort[%d]", i)
		name := sa.Field
		if tc := n.q.Grain.TimeColumn(); tc != "" && IsTimeWord(name) {
			name = tc
		} else if f, _, ok := catalog.Resolve(name); ok {
			name = f.Name
		} else if d, m, ok := resolveDerived(name); ok {
			if !n.derivedAvailable(at+".field", sa.Field, d, m) {
				continue
			}
			name = d
		}
		if !slices.Contains(returned, name) && IsTimeWord(name) {
			n.problem(Problem{Field: at + ".field", Value: sa.Field, Problem: "the result has no time column at total granularity",
				Valid: returned, Fix: "set time_granularity to daily, weekly, monthly or quarterly, or sort by a returned column"})
			continue
		}
		if !slices.Contains(returned, name) {
			n.problem(Problem{Field: at + ".field", Value: sa.Field, Problem: "is not a column of the result",
				Valid: returned, Closest: closestStrings(sa.Field, returned, 2),
				Fix: "sort by a requested dimension or metric, or add the field to metrics"})
			continue
		}
		if name != sa.Field {
			n.change(Change{Type: ChangeFieldRenamed, Field: at + ".field", From: sa.Field, To: name,
				Detail: fmt.Sprintf("Sort field %q read as %q", sa.Field, name)})
		}
		var desc bool
		switch strings.ToLower(strings.TrimSpace(sa.Direction)) {
		case "desc", "descending", "dsc", "down":
			desc = true
		case "asc", "ascending", "up":
		case "":
			f, ok := catalog.Lookup(metricOf(name))
			desc = ok && f.IsMetric() // biggest first for metrics and their changes, A→Z and oldest first otherwise
		default:
			n.problem(Problem{Field: at + ".direction", Value: sa.Direction, Problem: "unknown direction",
				Valid: []string{"asc", "desc"}})
			continue
		}
		n.q.Sort = append(n.q.Sort, SortKey{Field: name, Desc: desc})
	}
	if limit == nil {
		return
	}
	switch {
	case len(given) == 0:
		n.problem(Problem{Field: "limit", Value: *limit, Problem: "needs sort: a top-N without an order would cut rows arbitrarily",
			Fix: `add sort, e.g. "sort":[{"field":"spend","direction":"desc"}], or remove limit`})
	case *limit < 1 || *limit > MaxLimit:
		n.problem(Problem{Field: "limit", Value: *limit, Problem: fmt.Sprintf("must be between 1 and %d", MaxLimit),
			Fix: "remove limit to get every row"})
	default:
		n.q.Limit = *limit
	}
}

func (n *normalizer) budget(b *int) {
	if b == nil {
		return
	}
	if *b < MinTokenBudget || *b > MaxTokenBudget {
		n.problem(Problem{Field: "token_budget", Value: *b,
			Problem: fmt.Sprintf("must be between %d and %d tokens (below %d not even a summary fits)", MinTokenBudget, MaxTokenBudget, MinTokenBudget),
			Fix:     "omit token_budget to use the client's budget"})
		return
	}
	n.q.TokenBudget = *b
}

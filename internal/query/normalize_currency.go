package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// perCurrency keeps money from being ranked or thresholded across currencies as
// if it were one unit. When the accounts span currencies:
//   - a sort on a money metric (spend, cpc, cpa…) ranks within each currency:
//     currency becomes the first sort key, and a limit keeps the top N of each
//     currency (LimitPerCurrency), warned as sort_per_currency. The rule is
//     idempotent: running the normalized query again gives the same query and
//     the same warning.
//   - a filter on a money metric compares each row in its own currency
//     ("spend > 1000" is 1000 USD for USD rows, 1000 ARS for ARS rows): warned
//     as threshold_per_currency, so the user hears it.
func (n *normalizer) perCurrency() {
	curs := n.currencies()
	if len(curs) < 2 || !slices.Contains(n.q.Dimensions, "currency") {
		return
	}
	// The value and the change of a money metric are money; its change in
	// percent is not.
	money := func(field string) bool {
		if m, suffix, ok := SplitDerived(field); ok {
			if suffix == SuffixChangePct {
				return false
			}
			field = m
		}
		f, ok := catalog.Lookup(field)
		return ok && f.IsMetric() && f.Unit == catalog.Money
	}
	for _, f := range n.q.Filters {
		if f.Metric && money(f.Field) {
			n.q.Warnings = append(n.q.Warnings, Change{Type: WarningThresholdPerCurrency, Field: f.Field,
				Detail: fmt.Sprintf("The filter %s is applied to each row in its own currency (%s): the same number means a different amount in each currency. Tell the user; to compare amounts, filter each currency's accounts separately with a threshold of its own",
					f, strings.Join(curs, ", "))})
		}
	}
	i := slices.IndexFunc(n.q.Sort, func(k SortKey) bool { return money(k.Field) })
	if i < 0 {
		return
	}
	key := n.q.Sort[i].Field
	if c := slices.IndexFunc(n.q.Sort, func(k SortKey) bool { return k.Field == "currency" }); c != 0 {
		if c > 0 {
			n.q.Sort = slices.Delete(n.q.Sort, c, c+1)
		}
		n.q.Sort = append([]SortKey{{Field: "currency"}}, n.q.Sort...)
	}
	n.q.LimitPerCurrency = n.q.Limit > 0
	what := "ranked"
	if n.q.Limit > 0 {
		what = fmt.Sprintf("ranked and limited to the top %d", n.q.Limit)
	}
	n.q.Warnings = append(n.q.Warnings, Change{Type: WarningSortPerCurrency, Field: "sort",
		Detail: fmt.Sprintf("Rows are %s within each currency (%s), not across them: %s in different currencies is not one unit. Sort starts with currency",
			what, strings.Join(curs, ", "), key)})
}

// currencies are the distinct currencies of the queried accounts, in order.
func (n *normalizer) currencies() []string {
	var curs []string
	for _, a := range n.q.Accounts {
		if !slices.Contains(curs, a.Currency) {
			curs = append(curs, a.Currency)
		}
	}
	return curs
}

package answer

import (
	"fmt"
	"slices"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// unattributedDelivery explains the rows of a per-campaign breakdown set
// whose breakdowns are all empty: the sources read delivery no campaign's
// report holds beside such a set, with empty breakdowns (sqlgen's
// unattributedRows; the live source stages the same), so that the rows add
// up to the delivery totals. Step 1 removes such a row when it has no other
// dimension and reports "activity not attributed to any age or gender",
// which is true but does not say that no campaign has it either; by account
// it stays a row with an empty age. One notice, when any of tabs has such a
// row.
func unattributedDelivery(q *query.Query, tabs ...*fit.Table) []fit.Notice {
	var dims []string
	for _, d := range q.Dimensions {
		if catalog.IsBreakdown(d) {
			dims = append(dims, d)
		}
	}
	perCampaign := slices.ContainsFunc(q.AccountPlatforms(), func(p string) bool {
		s, ok := q.BreakdownSet(p)
		return ok && s.Key != catalog.Delivery && s.Level == catalog.LevelCampaign
	})
	if len(dims) == 0 || !perCampaign || !slices.ContainsFunc(tabs, func(t *fit.Table) bool { return hasEmptyAll(t, dims) }) {
		return nil
	}
	and, or := fit.JoinWords(dims, "and"), fit.JoinWords(dims, "or")
	verb := map[bool]string{true: "is", false: "are"}[len(dims) == 1]
	return []fit.Notice{{Type: "unattributed_delivery", Fields: dims, AboutEmpty: dims, Detail: fmt.Sprintf(
		"%s %s reported per campaign: delivery that no campaign's report holds (delivery not attributed to a campaign; read live, also that of a campaign the platform's report leaves out) has no %s, "+
			"so it is counted where %s %s empty — a row removed by the validation_filter, with its amounts in removed_totals, "+
			"when it has no other dimension; with it, the rows add up to the accounts' delivery totals (of what the query's filters keep)",
		and, verb, or, and, verb)}}
}

// hasEmptyAll says whether some row of t has every one of dims empty.
func hasEmptyAll(t *fit.Table, dims []string) bool {
	if t == nil {
		return false
	}
	var cols []*fit.Column
	for _, d := range dims {
		if c := t.Column(d); c != nil {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return false
	}
	for r := range t.Len() {
		if !slices.ContainsFunc(cols, func(c *fit.Column) bool { return c.Strings[r] != "" }) {
			return true
		}
	}
	return false
}

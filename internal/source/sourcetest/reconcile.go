package sourcetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// ReconcileCases read a breakdown set kept per campaign (catalog.BreakdownSet
// Level): age and gender, gender alone on Google, placement, conversions by
// action; by account, by campaign, with and without a time column, and over a
// comparison window. Each must reconcile with the delivery rows.
var ReconcileCases = []Case{
	{"age and gender over every currency", `{"account_ids":$AGEGENDER,"date_preset":"last_30d","dimensions":["currency","age","gender"],"metrics":["spend","impressions","clicks","conversions"]}`},
	{"gender alone on Google, by account", `{"account_ids":$GOOGLE,"date_preset":"last_30d","dimensions":["currency","account_name","gender"],"metrics":["spend","impressions","conversion_value"]}`},
	{"age by campaign, weekly, compared", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["currency","campaign_name","age"],"metrics":["spend","clicks"],"time_granularity":"weekly","compare":"previous_period"}`},
	{"placement by account, monthly", `{"account_ids":$AGEGENDER,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["currency","account_name","placement"],"metrics":["spend","impressions","video_views"],"time_granularity":"monthly"}`},
	{"conversions by action and campaign", `{"account_ids":$ALL,"date_preset":"last_30d","dimensions":["account_id","campaign_name","conversion_action"],"metrics":["conversions","conversion_value"]}`},
}

// runReconcile checks that a breakdown answer reconciles with the delivery
// rows: summed over the breakdown dimensions, its rows (those fit's step 1
// removes for having no dimension at all included) equal the answer to the
// same query without them, per currency and per every other dimension and
// period, in both windows of a comparison. A set kept per campaign holds no
// delivery that no campaign holds; the answer must still count it, with
// empty breakdown values, never leave it out silently. For conversion_action
// the rows of the account's default actions (and those with no action) are
// the ones that sum to conversions.
func runReconcile(t *testing.T, got source.Source, accounts []ads.Account, lists map[string]string, now time.Time, cases []Case) {
	ctx := context.Background()
	byID := map[string]ads.Account{}
	for _, a := range accounts {
		byID[a.AccountID] = a
	}
	for _, c := range cases {
		t.Run("reconcile/"+c.Name, func(t *testing.T) {
			raw, q := caseQuery(t, c, accounts, lists, now)
			windows := []*query.Query{clone(q)}
			if q.Compare != nil {
				windows = append(windows, q.CompareQuery())
			}
			for _, w := range windows {
				set, err := got.Query(ctx, clone(w))
				if err != nil {
					t.Fatal(err)
				}
				dq := clone(w)
				dq.Dimensions = slices.DeleteFunc(slices.Clone(w.Dimensions), catalog.IsBreakdown)
				dq.Sort, dq.Limit, dq.Compare = nil, 0, nil
				delivery, err := got.Query(ctx, dq)
				if err != nil {
					t.Fatal(err)
				}
				if delivery.Len() == 0 {
					t.Fatalf("%s: no delivery in %s … %s, the case proves nothing", raw, w.Start.Format(time.DateOnly), w.End.Format(time.DateOnly))
				}
				keep := func(tab *fit.Table, r int) bool { return true }
				if slices.Contains(w.Dimensions, "conversion_action") {
					keep = defaultActions(byID)
				}
				a, b := sumsBy(set, dq.Dimensions, keep), sumsBy(delivery, dq.Dimensions, func(*fit.Table, int) bool { return true })
				if d := diffSums(b, a); d != "" {
					t.Errorf("%s (%s … %s): the breakdown rows do not reconcile with the delivery rows: %s",
						raw, w.Start.Format(time.DateOnly), w.End.Format(time.DateOnly), d)
				}
			}
		})
	}
}

// defaultActions keeps the rows of an account's default conversion actions
// (ads.Account.ConversionActions) and those with no action.
func defaultActions(byID map[string]ads.Account) func(*fit.Table, int) bool {
	return func(tab *fit.Table, r int) bool {
		action := tab.Column("conversion_action").Strings[r]
		defaults := strings.Split(byID[tab.Column("account_id").Strings[r]].ConversionActions, ", ")
		return action == "" || slices.Contains(defaults, action)
	}
}

// sumsBy sums tab's additive metrics by the time column and dims, over the
// rows keep keeps.
func sumsBy(tab *fit.Table, dims []string, keep func(*fit.Table, int) bool) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	var keys []*fit.Column
	for _, c := range tab.Columns {
		if c.Role == fit.RoleTime || c.Role == fit.RoleDimension && slices.Contains(dims, c.Name) {
			keys = append(keys, c)
		}
	}
	for r := range tab.Len() {
		if !keep(tab, r) {
			continue
		}
		var k []string
		for _, c := range keys {
			k = append(k, c.Strings[r])
		}
		key := strings.Join(k, " | ")
		if out[key] == nil {
			out[key] = map[string]float64{}
		}
		for _, c := range tab.Columns {
			if c.Role == fit.RoleMetric && c.Aggregation == fit.Sum && !c.IsNull(r) {
				out[key][c.Name] += c.Numbers[r]
			}
		}
	}
	return out
}

// diffSums is the first group whose sums differ (within a relative 1e-9), or "".
func diffSums(want, got map[string]map[string]float64) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for m, w := range want[k] {
			if g := got[k][m]; math.Abs(g-w) > 1e-9*max(1, math.Abs(w)) {
				return fmt.Sprintf("[%s] %s: rows sum to %v, delivery is %v (%v missing)", k, m, g, w, w-g)
			}
		}
		if want[k] == nil {
			return fmt.Sprintf("[%s]: rows with no delivery", k)
		}
	}
	return ""
}

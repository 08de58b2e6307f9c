package answer

import (
	"fmt"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
)

// spendByCurrency is the spend of an answer's rows per currency, plus what its
// validation_filter says the rows it removed carried: the complete spend.
func spendByCurrency(res *Result) map[string]float64 {
	out := map[string]float64{}
	tab := res.Response.Table
	spend, cur := tab.Column("spend"), tab.Column("currency")
	for r := range tab.Len() {
		c := spend.Currency
		if cur != nil {
			c = cur.Strings[r]
		}
		out[c] += spend.Numbers[r]
	}
	for _, o := range res.Response.Meta.Optimizations {
		for _, tot := range o.RemovedTotals {
			for i, m := range tot.Metrics {
				if m == "spend" {
					out[tot.Currency] += tot.Values[i]
				}
			}
		}
	}
	return out
}

// A coarsened answer offers the requested grain on the top values, and the fold
// of the others; run against the warehouse (IN and NOT_IN as SQL compares
// them), each returns the rows and tokens promised at the grain asked, and the
// two answers together hold the same spend per currency as the coarsened one.
func TestAlternativesRerunAgainstTheWarehouse(t *testing.T) {
	e := engine(t)
	for _, c := range []struct {
		name, client string
		budget       int
		args         string
	}{
		{"one currency, daily", "", 4300,
			`{` + meta6 + `,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["account_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily"}`},
		{"three currencies, monthly", "", 4000,
			`{"platforms":["meta_ads"],"date_range":{"start":"2025-03-01","end":"2026-02-28"},"dimensions":["campaign_name"],"metrics":["spend","impressions","clicks","reach"],"time_granularity":"monthly"}`},
	} {
		res := ask(t, e, c.client, c.budget, c.args)
		m := res.Response.Meta
		if res.Response.Kind != fit.KindData || m.TimeGranularity.Returned == m.TimeGranularity.Requested {
			t.Fatalf("%s: %s at %+v", c.name, res.Response.Kind, m.TimeGranularity)
		}
		if len(m.Alternatives) == 0 {
			t.Fatalf("%s: coarsened to %s with no alternative: %.600s", c.name, m.TimeGranularity.Returned, res.Blocks[0])
		}
		if n, limit := exactTokens(res), effective(c.client, c.budget, c.args); n > limit {
			t.Errorf("%s: %d tokens with the alternatives, budget %d", c.name, n, limit)
		}
		for _, a := range m.Alternatives {
			if a.Rest == nil {
				t.Errorf("%s: no fold with %q", c.name, a.Description)
				continue
			}
			got := checkRerun(t, e, c.client, c.budget, res, []fit.Suggestion{a.Suggestion, *a.Rest}, c.name)
			if got[0] == nil || got[1] == nil {
				continue
			}
			want, top, rest := spendByCurrency(res), spendByCurrency(got[0]), spendByCurrency(got[1])
			for cur, v := range rest {
				top[cur] += v
			}
			for cur := range want {
				if fmt.Sprintf("%.2f", top[cur]) != fmt.Sprintf("%.2f", want[cur]) {
					t.Errorf("%s: %s spend %.2f in the top and the fold, %.2f in the coarsened answer", c.name, cur, top[cur], want[cur])
				}
			}
			t.Logf("%s: %q %d rows %d tokens; fold %d rows %d tokens", c.name, a.Description, a.ExpectedRows, a.TokenEstimate, a.Rest.ExpectedRows, a.Rest.TokenEstimate)
		}
	}
}

package answer

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
)

// TestNarrowToTotalDropsTimeSort: a suggestion at total grain of a query
// sorted by its time column runs — the sort on the time column, which a
// total has not, is dropped — instead of answering invalid_query (found by
// the oracle, seed 12, TestPropertySizeFirst #459.s0).
func TestNarrowToTotalDropsTimeSort(t *testing.T) {
	opts := query.Options{Accounts: []ads.Account{{AccountID: "act_1", AccountName: "A", Platform: "meta_ads", Currency: "USD"}},
		Now: func() time.Time { return time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC) }}
	q, err := query.ParseAndNormalize([]byte(`{"account_ids":["act_1"],"date_preset":"last_30d","dimensions":["ad_name"],"metrics":["spend"],`+
		`"time_granularity":"daily","sort":[{"field":"date","direction":"desc"},{"field":"spend","direction":"desc"}]}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []fit.Narrowing{{Grain: fit.Total}, {Grain: fit.Total, Field: "ad_name", Values: []string{"x"}}} {
		b, _ := json.Marshal(Narrow(q, n))
		got, err := query.ParseAndNormalize(b, opts)
		if err != nil {
			t.Fatalf("%+v: the narrowed query %s is refused: %v", n, b, err)
		}
		if len(got.Sort) != 1 || got.Sort[0].Field != "spend" {
			t.Errorf("%+v: sort %+v, want spend only", n, got.Sort)
		}
	}
}

package query

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// FuzzParseQuery feeds arbitrary bytes to ParseAndNormalize, as an MCP client
// could: it must never panic, every error must say what is wrong and where, and
// every accepted query must be one a source can run safely.
func FuzzParseQuery(f *testing.F) {
	seeds := []string{
		// Valid.
		`{"metrics":["spend"],"account_ids":["act_1011"]}`,
		`{"account_ids":["act_1011","act_1014","act_1016"],"date_preset":"last_month","dimensions":["campaign_name","date"],"metrics":["spend","roas"]}`,
		`{"platforms":["Facebook"],"date_range":{"start":"2026-01-01","end":"2026-04-01"},"dimensions":["Campaign Name","segments.device"],"metrics":["cost","metrics.clicks","ctr"],"time_granularity":"weekly"}`,
		`{"account_ids":["1015","Acme Brand","123-456-7801"],"metrics":["clicks"],"filters":[{"field":"spend","operator":">","value":"100"},{"field":"country","operator":"in","value":["US","AR"]},{"field":"clicks","operator":"BETWEEN","value":[1,1000]}],"sort":[{"field":"clicks","direction":"desc"}],"limit":10,"token_budget":5000}`,
		`{"accounts":["act_1011"],"granularity":"Day","group_by":["ad group name"],"metric":["purchases"],"order_by":[{"field":"purchases"}],"top":5}`,
		`{"platforms":["tiktok"],"metrics":["reach","frequency"],"dimensions":["week","month"],"sort":[{"field":"date"}]}`,
		`{"account_ids":["act_1011"],"metrics":["spend"],"filters":[{"field":"campaign_name","operator":"CONTAINS","value":"x'; DROP TABLE facts; --"}]}`,
		`{"time_increment":7,"account_ids":["act_1011"],"metrics":["spend"]}`,
		`{"account_ids":["act_1011"],"metrics":["spend","clicks"],"date_preset":"last_month","time_granularity":"monthly","compare":"previous_period","sort":[{"field":"spend_change_pct"}],"limit":3,"filters":[{"field":"clicks_change","operator":">","value":0}]}`,
		`{"account_ids":["act_1011"],"metrics":["spend"],"time_granularity":"weekly","comparison":"YoY"}`,
		`{"account_ids":["act_1011"],"metrics":["cost"],"date_range":{"start":"2026-03-01","end":"2026-03-14"},"vs":{"since":"2025-03-01","until":"2025-03-14"},"sort":[{"field":"Cost Change %"}]}`,
		// Invalid.
		``, `null`, `[]`, `{}`, `"x"`, `{"metrics":["spend"]} x`, `{"metrics":`, `{"":1}`,
		`{"metrics":["spend"]}`, // 14 accounts: too many
		`{"metricz":["spend"]}`,
		`{"metrics":["spend; DROP TABLE facts"],"account_ids":["act_1011"]}`,
		`{"metrics":["spend"],"dimensions":["campaign_name' OR 1=1 --"],"account_ids":["act_1011"]}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"date_range":{"start":"2026-03-10","end":"2026-03-01"}}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"date_range":{"start":20260101,"end":"x"}}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"filters":[{"field":"spend","operator":"CONTAINS","value":"1"},{"field":"date","operator":">","value":"2026-01-01"},{"field":"clicks","operator":"BETWEEN","value":[5,1]}]}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"limit":5}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"sort":[{"field":"clicks"}],"limit":0,"token_budget":1}`,
		`{"metrics":["spend"],"account_ids":["act_1011","act_1012","act_1013","act_1014","act_1015","act_1016","123-456-7801","123-456-7802","123-456-7803","123-456-7804","123-456-7805"]}`,
		`{"metrics":["spend"],"metrics":["clicks"]}`,
		`{"metrics":[null],"filters":[null],"sort":[null],"account_ids":[null]}`,
		`{"filters":[{"field":"spend","operator":"IN","value":[{"a":[1,2]},null,true]}],"metrics":["spend"],"account_ids":["act_1011"]}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"compare":{"start":"2026-03-01","end":"2026-03-20"}}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"date_range":{"start":"2025-01-01","end":"2026-03-01"},"compare":"previous_year"}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"compare":7,"sort":[{"field":"spend_change"}]}`,
		`{"metrics":["spend"],"account_ids":["act_1011"],"sort":[{"field":"spend_change"}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	accounts := testAccounts()
	f.Fuzz(func(t *testing.T, raw []byte) {
		opt := Options{Accounts: accounts, Now: clockAt(testNow)}
		q, err := ParseAndNormalize(raw, opt)
		if err != nil {
			if q != nil {
				t.Fatalf("query returned with error %v", err)
			}
			if err.Error() == "" {
				t.Fatalf("empty error message (%T)", err)
			}
			var e *Error
			var tm *TooManyAccountsError
			switch {
			case errors.As(err, &e):
				if len(e.Problems) == 0 {
					t.Fatalf("*Error without problems")
				}
				for _, p := range e.Problems {
					if strings.TrimSpace(p.Field) == "" || strings.TrimSpace(p.Problem) == "" {
						t.Fatalf("incomplete problem %+v", p)
					}
				}
			case errors.As(err, &tm):
				if tm.Max != DefaultMaxAccounts || tm.Requested <= tm.Max {
					t.Fatalf("too many accounts error %+v", tm)
				}
			default:
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if q == nil {
			t.Fatal("nil query without error")
		}
		if len(q.Metrics) == 0 {
			t.Fatalf("query without metrics: %+v", q)
		}
		if q.Start.IsZero() || q.End.Before(q.Start) {
			t.Fatalf("dates %s .. %s", q.Start, q.End)
		}
		if !q.End.Before(testNow.AddDate(0, 0, 2)) {
			t.Fatalf("ends in the future: %s", q.End)
		}
		if q.Days() > DefaultMaxSpanDays {
			t.Fatalf("%d days", q.Days())
		}
		if n := len(q.Accounts); n == 0 || n > DefaultMaxAccounts {
			t.Fatalf("%d accounts", n)
		}
		seen := map[string]bool{}
		for _, a := range q.Accounts {
			if seen[a.AccountID] {
				t.Fatalf("account %s twice", a.AccountID)
			}
			seen[a.AccountID] = true
		}
		canonical := func(kind catalog.Kind, names ...string) {
			for _, n := range names {
				f, ok := catalog.Lookup(n)
				if !ok || (kind != "" && f.Kind != kind) {
					t.Fatalf("%q is not a canonical %s", n, kind)
				}
			}
		}
		canonical(catalog.Dimension, q.Dimensions...)
		canonical(catalog.Metric, q.Metrics...)
		// A column of the result: a catalog field, or with compare the derived
		// column of a queried metric.
		column := func(name string) {
			if m, _, ok := SplitDerived(name); ok {
				if q.Compare == nil || !slices.Contains(q.Metrics, m) {
					t.Fatalf("derived column %q without compare or its metric (%v)", name, q.Metrics)
				}
				return
			}
			canonical("", name)
		}
		for _, fl := range q.Filters {
			column(fl.Field)
			if len(fl.Values) == 0 {
				t.Fatalf("filter without values %+v", fl)
			}
		}
		for _, s := range q.Sort {
			if s.Field != q.TimeColumn() || s.Field == "" {
				column(s.Field)
			}
		}
		if q.Limit < 0 || (q.Limit > 0 && len(q.Sort) == 0) {
			t.Fatalf("limit %d with sort %v", q.Limit, q.Sort)
		}
		if !q.Grain.Valid() {
			t.Fatalf("grain %q", q.Grain)
		}
		if c := q.Compare; c != nil {
			overlaps := !c.End.Before(q.Start) && !c.Start.After(q.End)
			if c.End.Before(c.Start) || overlaps || c.Days() > DefaultMaxSpanDays {
				t.Fatalf("compare %s %s with the range %s", c.Mode, span(c.Start, c.End), span(q.Start, q.End))
			}
		}
		// Whatever was accepted can be written back as arguments and run again.
		q2, err := Normalize(q.Args(), opt)
		if err != nil {
			t.Fatalf("args of an accepted query fail: %v\n%+v", err, q.Args())
		}
		if !equalQueries(q, q2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", q, q2)
		}
	})
}

package oracle

import (
	"testing"
)

// TestCompareBugs pins the comparison bugs TestPropertyCompare found (seed
// 12 and others), each as the smallest call that shows it. They fail until
// the engine is fixed; the invariants say how (b_rows, f_budget,
// i_suggestions).
func TestCompareBugs(t *testing.T) {
	runPinned(t, []pinnedCompare{
		// docs/query.md: "A filter may use a field that is not returned", and
		// a comparison's metric filter on m applies to the current window's
		// value. The engine drops every compared row instead: keepCompared
		// (internal/answer/compare.go) looks the filter's field up in the
		// joined table, which has only the asked metrics (and ratios' parts),
		// and a missing column fails the row.
		{name: "metric filter on a metric not asked",
			args: `{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-02-01","end":"2026-02-28"},"dimensions":["campaign_id"],"metrics":["spend"],"filters":[{"field":"clicks","operator":"GREATER_THAN","value":100}],"compare":"previous_period"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				x := c.at(d, c.returned())
				if len(x.kept) == 0 {
					t.Fatal("the oracle has no row with clicks > 100: the case shows nothing")
				}
				if len(c.tab.rows) != len(x.kept) {
					t.Errorf("%d rows; the oracle has %d compared rows whose clicks exceed 100", len(c.tab.rows), len(x.kept))
				}
			}},
		// The same for a ratio not asked whose parts are: ctr over clicks and
		// impressions.
		{name: "metric filter on a ratio not asked",
			args: `{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-02-01","end":"2026-02-28"},"dimensions":["campaign_id"],"metrics":["clicks","impressions"],"filters":[{"field":"ctr","operator":"GREATER_THAN","value":1}],"compare":"previous_period"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				x := c.at(d, c.returned())
				if len(x.kept) == 0 {
					t.Fatal("the oracle has no row with ctr > 1: the case shows nothing")
				}
				if len(c.tab.rows) != len(x.kept) {
					t.Errorf("%d rows; the oracle has %d compared rows whose ctr exceeds 1", len(c.tab.rows), len(x.kept))
				}
			}},
		// docs/contract.md: "The summary itself always fits the budget". A
		// comparison's summary lists four columns per metric and currency,
		// and _meta.comparison's prose, none of which is shed: at a budget
		// of 2,000 tokens it takes 2,083 (the same query without compare
		// fits a budget of 1,000 in 961).
		{name: "a comparison summary over its budget",
			budget: 2000,
			args:   `{"account_ids":["act_1015823746512093","act_2284619037465520"],"date_range":{"start":"2026-01-01","end":"2026-03-14"},"dimensions":["ad_name"],"metrics":["spend","clicks","impressions","cpa","ctr","roas"],"time_granularity":"daily","compare":"previous_period"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				if c.tokens > c.limit {
					t.Errorf("%s: %d tokens for a budget of %d", c.head.Type, c.tokens, c.limit)
				}
			}},
		// A data_too_large suggestion promises the rows it will return. The
		// "Totals for the whole date range by device, currency" of a daily
		// comparison by ad_name and device promises 8 and returns 6: it is
		// priced from the rows in hand projected onto device (fit's
		// fewerDimensions → comparedTotals) without step 1, so the rows
		// whose device is empty (their ad_name was not) are counted, and the
		// suggestion's own answer removes them (validation_filter, 2 rows
		// in each window).
		{name: "a comparison suggestion's expected_rows",
			client: "github-copilot-developer/1.0.3", budget: 8166,
			args: `{"account_ids":["7201845539016472318","617-204-8851","act_1015823746512093","act_3376015298441067"],"compare":"previous_year","date_range":{"end":"2026-02-25","start":"2026-01-09"},"dimensions":["ad_name","device"],"metrics":["spend","conversion_value","ctr","roas"],"time_granularity":"daily"}`,
			check: func(t *testing.T, d *Data, c *tcase) {
				if len(c.kids) == 0 {
					t.Fatalf("%s answered without suggestions", c.head.Type)
				}
				for _, k := range c.kids {
					if k.meta != nil && k.meta.ReturnedRows != k.sugg.ExpectedRows {
						t.Errorf("suggestion %q: expected_rows %d, returned %d", k.sugg.Description, k.sugg.ExpectedRows, k.meta.ReturnedRows)
					}
				}
			}},
	})
}

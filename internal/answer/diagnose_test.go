package answer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// The test warehouse's data covers 2025-02-08 … 2026-03-14; the closed Google
// account 856-430-2291 stopped delivering months before that.

func wantWarning(t *testing.T, res *Result, typ string, contains ...string) *fit.Warning {
	t.Helper()
	if res.IsError {
		t.Fatalf("error: %s", res.Blocks)
	}
	w := hasWarning(res.Response.Meta, typ)
	if w == nil {
		t.Errorf("no %s warning: %v", typ, res.Response.Meta.Warnings)
		return nil
	}
	for _, s := range contains {
		if !strings.Contains(w.Detail, s) {
			t.Errorf("%s detail %q lacks %q", typ, w.Detail, s)
		}
	}
	return w
}

func noWarning(t *testing.T, res *Result, types ...string) {
	t.Helper()
	for _, typ := range types {
		if w := hasWarning(res.Response.Meta, typ); w != nil {
			t.Errorf("unexpected %s: %s", typ, w.Detail)
		}
	}
}

// this_month on the 1st, when the data ends the day before, and a closed
// account whose data ended months ago: no rows (not one row of empty sums
// flagged all_zero_metrics), and no_rows says where the data is.
func TestNoRowsSaysWhereTheDataIs(t *testing.T) {
	first := &Engine{Source: duckdbtest.Open(t), Now: func() time.Time { return time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC) }}
	res := ask(t, first, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"today","metrics":["spend","clicks"]}`)
	wantWarning(t, res, "no_rows", `"Lumen Outdoor US" (act_1015823746512093) has data from 2025-02-08 to 2026-03-14; nothing in 2026-03-15`, "not loaded yet")
	noWarning(t, res, "all_zero_metrics")
	if m := res.Response.Meta; m.ReturnedRows != 0 || m.OriginalRows != 0 {
		t.Errorf("rows %d/%d, want none", m.OriginalRows, m.ReturnedRows)
	}

	month := &Engine{Source: duckdbtest.Open(t), Now: func() time.Time { return time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC) }}
	res = ask(t, month, "", 0, `{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"this_month","metrics":["spend","ctr"]}`)
	wantWarning(t, res, "no_rows", "to 2026-03-14; ", "nothing in 2026-04-01")
	noWarning(t, res, "all_zero_metrics")

	e := engine(t)
	res = ask(t, e, "", 0, `{"account_ids":["856-430-2291"],"date_preset":"last_30d","metrics":["spend","impressions"]}`)
	wantWarning(t, res, "no_rows", `"Harbor & Pine - Google (old)" (856-430-2291, CLOSED) has data from 2025-02-08 to 2025-`, "nothing in 2026-02-13 … 2026-03-14")
	noWarning(t, res, "all_zero_metrics")
}

// Empty because of the filters, not the data: the warning says which filters,
// and that the accounts do have data. Rows that exist but fail the metric
// filters are not "no data": they have a type of their own.
func TestNoRowsBlamesTheFilters(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend"],"filters":[{"field":"spend","operator":">","value":10000000}]}`)
	wantWarning(t, res, "no_rows_pass_metric_filters", "Nothing passed the metric filters", "per campaign_name has spend > 10000000")
	noWarning(t, res, "no_rows")
	res = ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"last_30d","metrics":["spend"],"filters":[{"field":"campaign_name","operator":"EQUALS","value":"no such campaign"}]}`)
	wantWarning(t, res, "no_rows", `Nothing matched the filters campaign_name = "no such campaign"`, "have data")
}

// A breakdown set with no row matching the dimension filters is no data,
// even where delivery rows of campaigns match them: the probe reads the set
// the query reads (found by the oracle, seed 2). Beside a per-campaign set
// the query also reads the delivery no campaign holds (empty status, so it
// passes campaign_status NOT_IN …), with an empty gender: that is the answer
// then, removed by step 1 with its totals and explained, never no_rows; and
// a filter that leaves it out leaves nothing, which is no_rows.
func TestNoRowsReadsTheQuerysBreakdownSet(t *testing.T) {
	e := engine(t)
	args := `{"account_ids":["act_1015823746512093","act_6630418825197342"],"date_range":{"start":"2026-01-01","end":"2026-01-14"},` +
		`"dimensions":["gender"],"metrics":["impressions","ctr"],"filters":[{"field":"campaign_status","operator":"NOT_IN","value":["PAUSED","ACTIVE","ARCHIVED"]},` +
		`{"field":"ctr","operator":"BETWEEN","value":[0,100]}%s]}`
	res := ask(t, e, "", 0, fmt.Sprintf(args, ""))
	if m := res.Response.Meta; m.OriginalRows != 1 || m.ReturnedRows != 0 {
		t.Fatalf("%d rows, %d returned: want the one row of delivery no campaign holds, removed", m.OriginalRows, m.ReturnedRows)
	}
	wantWarning(t, res, "unattributed_delivery", "gender is reported per campaign", "no campaign's report holds", "removed_totals")
	noWarning(t, res, "no_rows")
	res = ask(t, e, "", 0, fmt.Sprintf(args, `,{"field":"gender","operator":"IN","value":["female","male"]}`))
	if m := res.Response.Meta; m.OriginalRows != 0 {
		t.Fatalf("%d rows: the test needs a set with no matching row", m.OriginalRows)
	}
	wantWarning(t, res, "no_rows", "Nothing matched the filters")
	noWarning(t, res, "no_rows_pass_metric_filters")
}

// Reach over an arbitrary range: the other metrics answer, reach is
// metric_unavailable_at_grain with the alternatives; asked alone, the rows
// still come, with reach empty — never no_rows, never invalid SQL.
func TestReachOverAnArbitraryRange(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-01-07","end":"2026-02-18"},"metrics":["reach","spend"]}`)
	wantWarning(t, res, "metric_unavailable_at_grain", "left out", "time_granularity daily, weekly or monthly", "the 5 whole weeks 2026-01-12 … 2026-02-15 and no whole calendar month")
	noWarning(t, res, "no_rows")
	if !strings.HasPrefix(res.Blocks[1], "spend\n") || res.Response.Meta.ReturnedRows != 1 {
		t.Errorf("csv %q", res.Blocks[1])
	}
	for _, args := range []string{
		`{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-01-07","end":"2026-02-18"},"metrics":["reach","frequency"]}`,
		`{"account_ids":["act_1015823746512093","act_6630418825197342"],"date_preset":"last_month","metrics":["reach"]}`,
	} {
		res := ask(t, e, "", 0, args)
		wantWarning(t, res, "metric_unavailable_at_grain", "empty")
		noWarning(t, res, "no_rows", "all_zero_metrics")
		if res.Response.Meta.ReturnedRows != 1 {
			t.Errorf("%s: %d rows", args, res.Response.Meta.ReturnedRows)
		}
	}
}

// A closed account in an account breakdown is named, with where its data
// ends; in a total over several accounts too.
func TestClosedAccountIsNamed(t *testing.T) {
	e := engine(t)
	for _, args := range []string{
		`{"account_ids":["856-430-2291","482-915-3307"],"date_preset":"last_30d","dimensions":["account_name"],"metrics":["spend","clicks"]}`,
		`{"account_ids":["856-430-2291","482-915-3307"],"date_preset":"last_30d","metrics":["spend","clicks"]}`,
	} {
		res := ask(t, e, "", 0, args)
		wantWarning(t, res, "account_no_rows", `"Harbor & Pine - Google (old)" (856-430-2291, CLOSED) has data from 2025-02-08 to 2025-`, "nothing in 2026-02-13 … 2026-03-14")
	}
	// Over a range where its data ends: partial_data.
	res := ask(t, e, "", 0, `{"account_ids":["856-430-2291","482-915-3307"],"date_range":{"start":"2025-10-01","end":"2026-03-14"},"dimensions":["account_name"],"metrics":["spend"]}`)
	wantWarning(t, res, "partial_data", `the data of "Harbor & Pine - Google (old)" ends 2025-`)
	noWarning(t, res, "account_no_rows")
	// An account with data in the range but none matching the filters.
	res = ask(t, e, "", 0, `{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"last_30d","dimensions":["account_id"],"metrics":["spend"],"filters":[{"field":"publisher_platform","operator":"EQUALS","value":"instagram"}]}`)
	wantWarning(t, res, "account_no_rows", `"Lumen Outdoor - Google Ads" (482-915-3307) returned no rows: none of its data matches publisher_platform = "instagram"`)
}

// Blank cells are explained: reach where several campaigns share a name, a
// ratio over zero, a metric the platform does not report.
func TestBlankCellsAreExplained(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"platforms":["meta_ads"],"date_range":{"start":"2026-02-01","end":"2026-02-28"},"dimensions":["campaign_name"],"metrics":["spend","reach"]}`)
	if strings.Contains(res.Blocks[1], ",\n") { // some reach is empty
		wantWarning(t, res, "empty_values", "several campaigns share a campaign_name", "add campaign_id")
	} else {
		t.Errorf("the case proves nothing: no empty reach")
	}
	res = ask(t, e, "", 0, `{"account_ids":["act_6630418825197342"],"date_preset":"last_7d","dimensions":["ad_name"],"metrics":["spend","cpa"]}`)
	wantWarning(t, res, "empty_values", "cpa is empty where conversions is 0")
	res = ask(t, e, "", 0, `{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"last_month","metrics":["spend","link_clicks"]}`)
	wantWarning(t, res, "metric_not_reported", "link_clicks is not reported by google_ads", "Lumen Outdoor - Google Ads")
	res = ask(t, e, "", 0, `{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"last_month","dimensions":["account_id"],"metrics":["reach","frequency"]}`)
	wantWarning(t, res, "metric_not_reported", "reach and frequency are not reported by google_ads")
	noWarning(t, res, "all_zero_metrics", "empty_values")
}

// A percentage filter given as a fraction is flagged; a plausible one is not.
func TestFractionFilterIsFlagged(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend","ctr"],"filters":[{"field":"ctr","operator":">","value":0.015}]}`)
	wantWarning(t, res, "filter_looks_like_fraction", "ctr is a percentage (1.5 means 1.5%); 0.015 means 0.015%")
	res = ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"last_30d","dimensions":["campaign_name"],"metrics":["spend","ctr"],"filters":[{"field":"ctr","operator":">","value":1.5}]}`)
	noWarning(t, res, "filter_looks_like_fraction")
}

// Frequency gets 4 decimals like the other ratios.
func TestFrequencyDecimalsInTheAnswer(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["act_1015823746512093"],"date_preset":"last_month","metrics":["reach","frequency","ctr"]}`)
	lines := strings.Split(strings.TrimSpace(res.Blocks[1]), "\n")
	for _, v := range strings.Split(lines[1], ",") {
		if i := strings.IndexByte(v, '.'); i >= 0 && len(v)-i-1 > 4 {
			t.Errorf("%s has more than 4 decimals: %s", v, lines)
		}
	}
}

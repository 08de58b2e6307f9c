package answer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
)

// firstColumn is a result's CSV rows' first cells.
func firstColumn(t *testing.T, res *Result) []string {
	t.Helper()
	if res.IsError || len(res.Blocks) != 2 {
		t.Fatalf("not data: %q", res.Blocks)
	}
	lines := strings.Split(strings.TrimSpace(res.Blocks[1]), "\n")[1:]
	var out []string
	for _, l := range lines {
		out = append(out, strings.SplitN(l, ",", 2)[0])
	}
	return out
}

// A column the product adds (here attribution_window, because a Meta and a
// Google account count conversions under different windows) is not a
// breakdown: rows with no campaign are removed as they are without it, and
// take no place in the top N. The five cheapest campaigns are the same
// whether conversions are asked (the column is added) or not.
func TestAddedAttributionWindowTakesNoPlaceInATopN(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"last_month","dimensions":["campaign_name"],"sort":[{"field":"spend","direction":"asc"}],"limit":5`
	withConv := ask(t, e, "claude-code", 0, `{`+q+`,"metrics":["spend","conversions"]}`)
	if hasOptimization(withConv.Response.Meta, "attribution_window_column_added") == nil {
		t.Fatalf("no attribution_window column added: %s", withConv.Blocks[0])
	}
	plain := ask(t, e, "claude-code", 0, `{`+q+`,"metrics":["spend"]}`)
	got, want := firstColumn(t, withConv), firstColumn(t, plain)
	if slices.Contains(got, "") || !slices.Equal(got, want) {
		t.Errorf("campaigns %q, want %q (those of spend alone)", got, want)
	}
	if g, w := withConv.Response.Meta.RowsBeforeLimit, plain.Response.Meta.RowsBeforeLimit; g < w {
		t.Errorf("rows_before_limit %d, want at least %d (the campaigns, some under two windows)", g, w)
	}
	vf := hasOptimization(withConv.Response.Meta, "validation_filter")
	if vf == nil || vf.RowsRemoved == 0 {
		t.Fatalf("no validation_filter: %s", withConv.Blocks[0])
	}
	// What the removed rows carried is per window: conversions under
	// different windows are never summed.
	windows := map[string]bool{}
	b, _ := fit.MarshalText(vf.RemovedTotals)
	for _, w := range []string{"7d_click_1d_view", "per_conversion_action"} {
		windows[w] = strings.Contains(string(b), `"attribution_window":"`+w+`"`)
	}
	if !windows["7d_click_1d_view"] || !windows["per_conversion_action"] {
		t.Errorf("removed_totals not per window: %s", b)
	}
}

// zeroKeys are the accounts an answer's all_zero_metrics warning names; nil
// without the warning.
func zeroKeys(res *Result) []string {
	if w := hasWarning(res.Response.Meta, "all_zero_metrics"); w != nil {
		return append([]string{}, w.Keys...)
	}
	return nil
}

// Whether an account is all zero does not depend on the dimensions asked:
// the accounts named by account_id are named by account_name, by campaign
// and with no dimension.
func TestAllZeroAccountWhateverTheDimensions(t *testing.T) {
	e := engine(t)
	for _, metrics := range []string{`["spend","impressions"]`, `["reach","frequency"]`} {
		const accounts = `"account_ids":["7318862045571299861","7201845539016472318","7254490217683350144"],"date_preset":"last_month"`
		byID := zeroKeys(ask(t, e, "", 0, `{`+accounts+`,"metrics":`+metrics+`,"dimensions":["account_id"]}`))
		if len(byID) == 0 {
			t.Fatalf("%s: no account all zero by account_id; the test needs one", metrics)
		}
		dimsList := []string{`["account_name"]`, `["campaign_name"]`, `[]`}
		if metrics == `["spend","impressions"]` {
			// Reach is not stored per device: no metric has a value there.
			dimsList = append(dimsList, `["campaign_id","device"]`)
		}
		for _, dims := range dimsList {
			got := zeroKeys(ask(t, e, "", 0, `{`+accounts+`,"metrics":`+metrics+`,"dimensions":`+dims+`}`))
			if !slices.Equal(got, byID) {
				t.Errorf("%s by %s: all_zero_metrics names %q, by account_id %q", metrics, dims, got, byID)
			}
		}
	}
}

// A blank frequency is explained by what is true of its row: an account
// whose reach is 0 had nobody to divide by — not a name several accounts
// share, when no two of the accounts share one.
func TestEmptyFrequencyReasonIsTrue(t *testing.T) {
	e := engine(t)
	accounts, err := e.Source.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, a := range accounts {
		if a.Platform == "tiktok_ads" {
			names[a.AccountName]++
		}
	}
	for n, k := range names {
		if k > 1 {
			t.Fatalf("the demo's TikTok accounts share the name %q; the test needs distinct names", n)
		}
	}
	res := ask(t, e, "", 0, `{"platforms":["tiktok_ads"],"date_preset":"last_month","metrics":["reach","frequency"],"dimensions":["account_name"]}`)
	var reasons []string
	for _, w := range res.Response.Meta.Warnings {
		if w.Type == "empty_values" {
			reasons = append(reasons, w.Detail)
		}
	}
	if len(reasons) != 1 || strings.Contains(reasons[0], "share") || !strings.Contains(reasons[0], "reach is 0") {
		t.Errorf("reasons %q, want one: frequency empty where reach is 0", reasons)
	}
}

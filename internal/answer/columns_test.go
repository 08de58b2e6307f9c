package answer

import (
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

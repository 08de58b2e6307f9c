package main

import (
	"strings"
	"testing"
)

// TestQueryBreakdownsAndAttribution: the CLI answers age × gender and
// conversions by action, passes --attribution-window (a window the warehouse
// holds answers; another is refused naming the accounts and the fix), and a
// combination no platform reports is refused with the groups that work.
func TestQueryBreakdownsAndAttribution(t *testing.T) {
	db := testDB(t)
	base := []string{"query", "--raw", "--db", db, "--today", "2026-03-15", "-p", "meta", "--start", "2026-03-01", "--end", "2026-03-14"}
	out, _, err := runCLI(append(base, "-m", "spend,conversions", "-d", "age,gender")...)
	if err != nil || !strings.HasPrefix(out, "age,gender,currency,spend,conversions\n") || strings.Count(out, "\n") < 6 {
		t.Fatalf("age × gender: %v\n%.300s", err, out)
	}
	out, _, err = runCLI(append(base, "-m", "conversions,conversion_value", "-d", "conversion_action")...)
	if err != nil || !strings.Contains(out, "\npurchase,") || !strings.Contains(out, "\nadd_to_cart,") {
		t.Fatalf("conversions by action: %v\n%.300s", err, out)
	}
	if out, _, err = runCLI(append(base, "-m", "conversions", "--attribution-window", "1d_view,7d_click")...); err != nil || !strings.HasPrefix(out, "conversions\n") {
		t.Errorf("the window the warehouse holds, spelled otherwise: %v\n%.300s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "conversions", "--attribution-window", "1d_click"}, "attribution_window: the warehouse holds conversions counted under each account's own window"},
		{[]string{"-m", "conversions", "--attribution-window", "7d_view"}, `attribution_window: "7d_view": "7d_view" is not a window part`},
		{[]string{"-m", "spend", "-d", "age,placement"}, "Meta Ads cannot combine age with placement in one report"},
	} {
		if _, _, err := runCLI(append(base, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

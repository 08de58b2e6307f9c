package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Every query shape compiles to valid SQL and answers rows where the data has
// facts: each kind of metric (additive, ratio, reach, frequency and mixes) at
// every grain, with and without dimensions (reach-capable or not) and filters,
// over one or two accounts, for a stored period and an arbitrary range. A
// requested metric is either a column or named by a notice.
func TestEveryQueryShapeRuns(t *testing.T) {
	src := openTestSource(t)
	metrics := [][]string{{"spend"}, {"ctr"}, {"reach"}, {"frequency"}, {"reach", "frequency"}, {"reach", "spend"}, {"frequency", "cpc"}, {"spend", "ctr", "reach", "frequency"}}
	grains := []string{"daily", "weekly", "monthly", "total"}
	type dims struct {
		dims    []string
		filters string
	}
	shapes := []dims{
		{nil, ""}, {[]string{"account_name"}, ""}, {[]string{"account_id"}, ""}, {[]string{"campaign_name"}, ""},
		{[]string{"campaign_id", "account_id"}, ""}, {[]string{"country"}, ""}, {[]string{"account_name", "device"}, ""},
		{nil, `,"filters":[{"field":"country","operator":"EQUALS","value":"US"}]`},
		{[]string{"campaign_name"}, `,"filters":[{"field":"campaign_status","operator":"NOT_EQUALS","value":"archived"}]`},
	}
	accounts := []string{`["act_1015823746512093"]`, `["act_1015823746512093","act_6630418825197342"]`}
	ranges := []string{`{"start":"2026-01-07","end":"2026-01-25"}`, `{"start":"2026-02-01","end":"2026-02-28"}`}
	n := 0
	for _, ms := range metrics {
		for _, g := range grains {
			for _, sh := range shapes {
				for _, acc := range accounts {
					for _, r := range ranges {
						mj, _ := json.Marshal(ms)
						dj, _ := json.Marshal(sh.dims)
						if sh.dims == nil {
							dj = []byte("[]")
						}
						raw := fmt.Sprintf(`{"account_ids":%s,"date_range":%s,"metrics":%s,"dimensions":%s,"time_granularity":%q%s}`, acc, r, mj, dj, g, sh.filters)
						n++
						q := normalize(t, src, raw)
						tab, err := src.Query(context.Background(), q)
						if err != nil {
							t.Errorf("%s: %v", raw, err)
							continue
						}
						if err := tab.Validate(); err != nil {
							t.Errorf("%s: %v", raw, err)
							continue
						}
						if tab.Len() == 0 {
							t.Errorf("%s: no rows, though the accounts have facts in the range", raw)
						}
						for _, m := range ms {
							if c := tab.Column(m); c != nil && !c.Hidden {
								continue
							}
							if !slices.ContainsFunc(tab.Notices, func(n fit.Notice) bool { return slices.Contains(n.Fields, m) }) {
								t.Errorf("%s: %s neither returned nor explained; notices %v", raw, m, tab.Notices)
							}
						}
						visible := slices.ContainsFunc(tab.Columns, func(c *fit.Column) bool { return c.Role == fit.RoleMetric && !c.Hidden })
						if !visible {
							t.Errorf("%s: no metric column at all", raw)
						}
					}
				}
			}
		}
	}
	t.Logf("%d shapes", n)
}

// A total over no facts is no row, not one row of empty sums (which would
// read as zeros), whatever is asked.
func TestTotalOverNoFactsHasNoRows(t *testing.T) {
	src := openTestSource(t)
	for _, raw := range []string{
		// The data ends 2026-03-14; "today" is 2026-03-15.
		`{"account_ids":["act_1015823746512093"],"date_preset":"today","metrics":["spend","clicks"]}`,
		`{"account_ids":["act_1015823746512093"],"date_preset":"today","metrics":["spend","ctr","reach","frequency"]}`,
		`{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"today","metrics":["reach"]}`,
		// The closed Google account stopped delivering months before the end.
		`{"account_ids":["856-430-2291"],"date_preset":"last_30d","metrics":["spend","impressions"]}`,
		`{"account_ids":["856-430-2291"],"date_preset":"last_30d","metrics":["spend"],"time_granularity":"monthly"}`,
	} {
		_, tab := run(t, src, raw)
		if tab.Len() != 0 {
			t.Errorf("%s: %d rows, want none:\n%s", raw, tab.Len(), csvOf(t, tab))
		}
	}
}

// Reach asked alone where it cannot be answered still answers the rows, with
// the metric empty and a notice, never an empty or invalid result.
func TestReachAloneWhereUnavailable(t *testing.T) {
	src := openTestSource(t)
	for _, raw := range []string{
		`{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-01-07","end":"2026-02-18"},"metrics":["reach","frequency"]}`,
		`{"account_ids":["act_1015823746512093","act_6630418825197342"],"date_preset":"last_month","metrics":["reach"]}`,
		`{"account_ids":["act_1015823746512093"],"date_preset":"last_month","dimensions":["country"],"metrics":["reach"]}`,
	} {
		_, tab := run(t, src, raw)
		if tab.Len() == 0 {
			t.Errorf("%s: no rows", raw)
			continue
		}
		c := tab.Column("reach")
		if c == nil {
			c = tab.Column("frequency")
		}
		if c == nil || c.Hidden {
			t.Errorf("%s: no reach column:\n%s", raw, csvOf(t, tab))
			continue
		}
		for i := range c.Numbers {
			if !c.IsNull(i) {
				t.Errorf("%s: row %d has reach %v, want empty", raw, i, c.Numbers[i])
			}
		}
		if len(tab.Notices) == 0 || tab.Notices[0].Type != "metric_unavailable_at_grain" || !strings.Contains(tab.Notices[0].Detail, "empty") {
			t.Errorf("%s: notices %v", raw, tab.Notices)
		}
	}
	// A filter on the unavailable metric is still an error the model can fix.
	q := normalize(t, src, `{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-01-07","end":"2026-02-18"},"metrics":["reach"],"filters":[{"field":"reach","operator":"GREATER_THAN","value":5}]}`)
	if _, err := src.Query(context.Background(), q); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("filter on unavailable reach: %v", err)
	}
}

// Frequency is a ratio of impressions to reach: its column says so, and the
// CSV gives it 4 decimals like the other ratios.
func TestFrequencyHasRatioDecimals(t *testing.T) {
	src := openTestSource(t)
	_, tab := run(t, src, `{"account_ids":["act_1015823746512093"],"date_preset":"last_month","metrics":["reach","frequency"]}`)
	out := csvOf(t, tab)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("csv:\n%s", out)
	}
	parts := strings.Split(lines[1], ",")
	if i := strings.IndexByte(parts[1], '.'); i >= 0 && len(parts[1])-i-1 > 4 {
		t.Errorf("frequency %s has more than 4 decimals", parts[1])
	}
	if strings.Contains(parts[0], ".") {
		t.Errorf("reach %s is not a whole count", parts[0])
	}
}

// Coverage is each account's first and last fact date.
func TestCoverage(t *testing.T) {
	src := openTestSource(t)
	cov, err := src.Coverage(context.Background(), []string{"act_1015823746512093", "856-430-2291", "no-such-account"})
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	if got := cov["act_1015823746512093"]; !got.First.Equal(day("2025-02-08")) || !got.Last.Equal(day("2026-03-14")) {
		t.Errorf("active account %v", got)
	}
	closed, ok := cov["856-430-2291"]
	if !ok || !closed.Last.Before(day("2026-01-15")) || closed.Last.Before(closed.First) {
		t.Errorf("closed account %v", closed)
	}
	if _, ok := cov["no-such-account"]; ok || len(cov) != 2 {
		t.Errorf("coverage %v", cov)
	}
	var _ source.CoverageSource = src
}

func csvOf(t *testing.T, tab *fit.Table) string {
	t.Helper()
	var b strings.Builder
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A metric a platform does not report is empty for its accounts, and a notice
// names them (and says a total over several accounts counts only the others).
func TestMetricNotReportedIsNamed(t *testing.T) {
	src := openTestSource(t)
	for _, c := range []struct{ raw, fields, detail string }{
		{`{"account_ids":["act_1015823746512093","482-915-3307"],"date_preset":"last_month","metrics":["spend","link_clicks"]}`,
			"link_clicks", `link_clicks is not reported by google_ads: empty for the account "Lumen Outdoor - Google Ads", and a row or total`},
		{`{"account_ids":["act_1015823746512093","482-915-3307","7201845539016472318"],"date_preset":"last_month","dimensions":["account_id"],"metrics":["link_clicks","reach","frequency"]}`,
			"reach,frequency", `reach and frequency are not reported by google_ads: empty for the account "Lumen Outdoor - Google Ads"`},
	} {
		_, tab := run(t, src, c.raw)
		i := slices.IndexFunc(tab.Notices, func(n fit.Notice) bool {
			return n.Type == "metric_not_reported" && strings.Join(n.Fields, ",") == c.fields
		})
		if i < 0 || !strings.HasPrefix(tab.Notices[i].Detail, c.detail) {
			t.Errorf("%s: notices %v, want %s", c.raw, tab.Notices, c.detail)
		}
	}
	_, tab := run(t, src, `{"account_ids":["act_1015823746512093"],"date_preset":"last_month","metrics":["link_clicks","reach"]}`)
	if slices.ContainsFunc(tab.Notices, func(n fit.Notice) bool { return n.Type == "metric_not_reported" }) {
		t.Errorf("Meta reports both: %v", tab.Notices)
	}
}

package live_test

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
)

// flagshipIDs are the seed's flagship accounts: five Google, five Meta.
var flagshipIDs = []string{"617-204-8851", "856-430-2291", "482-915-3307", "725-118-6403", "309-772-1946",
	"act_4409187263550918", "act_3376015298441067", "act_6630418825197342", "act_2284619037465520", "act_1015823746512093"}

// flagship is the seed's flagship query (daily × campaign_name, 60 days, ten
// accounts, spend/impressions/clicks/ctr/conversions) at grain.
func flagship(grain fit.Grain) string {
	return `{"account_ids":["` + strings.Join(flagshipIDs, `","`) + `"],"date_range":{"start":"2025-12-15","end":"2026-02-12"},"dimensions":["campaign_name"],` +
		`"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"` + string(grain) + `"}`
}

// fakes are both platforms' fake APIs behind one live source and the answer
// engine, as the server runs them.
type fakes struct {
	meta   *metatest.Server
	google *googleadstest.Server
	engine *answer.Engine
}

func startFakes(t testing.TB) *fakes {
	t.Helper()
	m := metatest.New(t)
	g := googleadstest.Start(t, googleadstest.Config{})
	mc, err := meta.New(meta.Options{BaseURL: m.URL, AccessToken: m.Token(), RequestsPerSecond: 2000, RetryBaseDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := googleads.New(googleads.Options{BaseURL: g.URL, TokenURL: g.TokenURL, ClientID: googleadstest.ClientID,
		ClientSecret: googleadstest.ClientSecret, RefreshToken: googleadstest.RefreshToken, RequestsPerSecond: -1, RetryBaseDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &fakes{meta: m, google: g, engine: &answer.Engine{Source: live.New(nil, mc, gc), Now: duckdbtest.Now}}
}

// report is one report an account was asked for: a Meta Insights request (its
// next pages are the same report) or a Google searchStream over metrics.
type report struct {
	account string
	// rows: the report has facts; else it asks for reach alone.
	rows bool
	// key is the report's parameters, to tell a repeated report.
	key string
}

// call answers one tool call and returns the reports the fakes were asked
// during it, and the source_calls it reported.
func (f *fakes) call(t *testing.T, args string, budget int) (*answer.Result, []report) {
	t.Helper()
	f.meta.ClearRequests()
	before, tokens := len(f.google.Requests()), f.google.TokenRequests()
	res, err := f.engine.Query(context.Background(), answer.Request{Args: []byte(args), Client: "claude-ai", Budget: budget})
	if err != nil || res.Response == nil {
		t.Fatalf("%s: %v %v", args, err, res.Blocks)
	}
	var out []report
	requests := 0
	for _, r := range f.meta.Requests() {
		requests++
		act, ok := strings.CutSuffix(strings.TrimPrefix(r.Path, "/v25.0/"), "/insights")
		if !ok || r.Params.Get("after") != "" {
			continue
		}
		p := url.Values{}
		for _, k := range []string{"level", "fields", "time_range", "time_ranges", "time_increment", "breakdowns", "filtering"} {
			p.Set(k, r.Params.Get(k))
		}
		fields := strings.Split(r.Params.Get("fields"), ",")
		reachOnly := !slices.ContainsFunc(fields, func(f string) bool { return f != "reach" && !strings.HasPrefix(f, "campaign_") })
		out = append(out, report{account: act, rows: !reachOnly, key: act + "?" + p.Encode()})
	}
	for _, r := range f.google.Requests()[before:] {
		requests++
		if strings.Contains(r.Query, "metrics.") {
			id := r.CustomerID[:3] + "-" + r.CustomerID[3:6] + "-" + r.CustomerID[6:]
			out = append(out, report{account: id, rows: true, key: id + "?" + r.Query})
		}
	}
	requests += f.google.TokenRequests() - tokens
	if res.Report.SourceCalls != requests {
		t.Errorf("%s: source_calls %d, the fakes received %d requests", args, res.Report.SourceCalls, requests)
	}
	return res, out
}

// rowReports counts the reports with facts each account was asked.
func rowReports(reports []report) map[string]int {
	out := map[string]int{}
	for _, r := range reports {
		if r.rows {
			out[r.account]++
		}
	}
	return out
}

func tableCSV(t *testing.T, tab *fit.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameAsFresh checks that a coarsened answer holds the numbers a new call
// asking directly for the grain returned gets (with a budget it fits in).
func (f *fakes) sameAsFresh(t *testing.T, res *answer.Result, fresh func(fit.Grain) string) {
	t.Helper()
	g := res.Response.Meta.TimeGranularity
	if res.Response.Kind != fit.KindData || g == nil || g.Returned == g.Requested {
		return
	}
	direct, _ := f.call(t, fresh(g.Returned), 1_000_000)
	if direct.Response.Kind != fit.KindData {
		t.Fatalf("the fresh %s query did not fit", g.Returned)
	}
	if a, b := tableCSV(t, res.Response.Table), tableCSV(t, direct.Response.Table); a != b {
		t.Errorf("coarsened to %s, the answer differs from a fresh %s query:\n%.600s\n---\n%.600s", g.Returned, g.Returned, a, b)
	}
}

// outcome is what an answer to a query at grain returned: its grain, or
// data_too_large.
func outcome(res *answer.Result, grain fit.Grain) string {
	if res.Response.Kind != fit.KindData {
		return string(res.Response.Kind)
	}
	if g := res.Response.Meta.TimeGranularity; g != nil {
		return string(g.Returned)
	}
	return string(grain)
}

// TestFlagshipFetchesOncePerAccount: the seed's flagship over both fakes asks
// each account for its rows exactly once, whatever the grain returned (the
// grain asked, monthly, quarterly, data_too_large), asked daily or weekly (weeks
// do not roll up into months: the call fetches days); the coarsened answers
// hold the numbers of a fresh query at the grain returned.
func TestFlagshipFetchesOncePerAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the API fakes")
	}
	f := startFakes(t)
	for _, grain := range []fit.Grain{fit.Daily, fit.Weekly} {
		var outcomes []string
		for _, budget := range []int{100_000, 8_000, 3_000, 600} {
			res, reports := f.call(t, flagship(grain), budget)
			outcomes = append(outcomes, outcome(res, grain))
			n := rowReports(reports)
			for _, id := range flagshipIDs {
				if n[id] != 1 {
					t.Errorf("%s flagship, budget %d (%s): account %s asked %d times for its rows, want once", grain, budget, outcome(res, grain), id, n[id])
				}
			}
			if len(n) != len(flagshipIDs) || len(reports) != len(flagshipIDs) {
				t.Errorf("%s flagship, budget %d: %d reports over %d accounts, want one per account (%d)", grain, budget, len(reports), len(n), len(flagshipIDs))
			}
			f.sameAsFresh(t, res, flagship)
		}
		if want := []string{string(grain), "monthly", "quarterly", "data_too_large"}; !slices.Equal(outcomes, want) {
			t.Errorf("%s flagship returned %v, want %v (the budgets no longer exercise every grain)", grain, outcomes, want)
		}
	}
}

// TestReachCoarsenedInOnePass: a daily reach query whose answer must be
// coarsened (reach cannot be rolled up) asks each Meta account for its rows
// once and for each grain's reach once, in the same pass whatever the grain
// returned; the coarsened reach is a fresh query's.
func TestReachCoarsenedInOnePass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the API fakes")
	}
	f := startFakes(t)
	reach := func(g fit.Grain) string {
		return `{"platforms":["meta_ads"],"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["campaign_name"],` +
			`"metrics":["spend","reach","frequency"],"time_granularity":"` + string(g) + `"}`
	}
	var outcomes []string
	var sizes []int
	for _, budget := range []int{100_000, 8_000, 2_000} {
		res, reports := f.call(t, reach(fit.Daily), budget)
		outcomes = append(outcomes, outcome(res, fit.Daily))
		sizes = append(sizes, len(reports))
		seen := map[string]bool{}
		for _, r := range reports {
			if seen[r.key] {
				t.Errorf("budget %d (%s): a report asked twice: %s", budget, outcome(res, fit.Daily), r.key)
			}
			seen[r.key] = true
		}
		for id, n := range rowReports(reports) {
			if n != 1 {
				t.Errorf("budget %d (%s): account %s asked %d times for its rows, want once", budget, outcome(res, fit.Daily), id, n)
			}
		}
		f.sameAsFresh(t, res, reach)
		if g := res.Response.Meta.TimeGranularity; g != nil && g.Returned == fit.Monthly && !strings.Contains(res.Blocks[1], "reach") {
			t.Errorf("the monthly answer lost reach:\n%.300s", res.Blocks[1])
		}
	}
	if !slices.Equal(outcomes, []string{"daily", "monthly", "total"}) {
		t.Errorf("returned %v, want [daily monthly total] (the budgets no longer exercise the grains)", outcomes)
	}
	if sizes[0] != sizes[1] || sizes[1] != sizes[2] {
		t.Errorf("reports per call %v: the pass should not depend on the grain returned", sizes)
	}
}

// TestEachCallFetchesAgain: nothing fetched by one call answers another.
func TestEachCallFetchesAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the API fakes")
	}
	f := startFakes(t)
	for range 2 {
		_, reports := f.call(t, flagship(fit.Daily), 8_000)
		if n := rowReports(reports); len(n) != len(flagshipIDs) {
			t.Errorf("a second call fetched %d accounts, want all %d", len(n), len(flagshipIDs))
		}
	}
}

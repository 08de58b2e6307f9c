package meta

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
)

// scenarioQuery is a campaign-level daily query over all Meta accounts with
// monthly reach left aside: enough rows for several pages.
const scenarioQuery = `{"metrics":["spend","clicks","conversions","roas"],"dimensions":["account_name","campaign_name"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_14d"}`

// warehouseCSV is the test warehouse's answer to q.
func warehouseCSV(t *testing.T, q *query.Query) string {
	t.Helper()
	want, err := duckdbtest.Open(t).Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return csvOf(t, want)
}

// run answers q through the live source over the connector, counting calls.
func (f *fixture) run(ctx context.Context, t *testing.T, q *query.Query) (string, int, error) {
	t.Helper()
	calls := &source.Calls{}
	tab, err := live.New(nil, f.conn).Query(source.WithCalls(ctx, calls), q)
	if err != nil {
		return "", calls.N(), err
	}
	return csvOf(t, tab), calls.N(), nil
}

// failedAccounts unwraps the per-account failures of a query.
func failedAccounts(t *testing.T, err error) *source.AccountsError {
	t.Helper()
	var ae *source.AccountsError
	if !errors.As(err, &ae) {
		t.Fatalf("want a *source.AccountsError, got %T: %v", err, err)
	}
	return ae
}

// TestScenarioNormal is the baseline: the right numbers, one insights request
// per account when a page holds everything.
func TestScenarioNormal(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("the connector differs from the warehouse")
	}
	if n := len(requestsTo(f.srv.Requests(), "/insights", "GET")); n != len(q.Accounts) || calls != n {
		t.Errorf("%d insights requests, %d calls counted; want one per account (%d)", n, calls, len(q.Accounts))
	}
}

// TestScenarioPages: results split over several pages are followed through
// paging.next to the end (and the accounts list too), with the same numbers.
func TestScenarioPages(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Scenario(metatest.Pages(4))
	accounts := f.accounts(t)
	if n := len(requestsTo(f.srv.Requests(), "/me/adaccounts", "GET")); n < 4 {
		t.Errorf("accounts listed in %d requests, want at least 4 pages", n)
	}
	if len(accounts) != len(f.srv.Accounts()) {
		t.Fatalf("%d accounts, want %d", len(accounts), len(f.srv.Accounts()))
	}
	q := normalize(t, accounts, scenarioQuery)
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("paged answers differ from the warehouse")
	}
	reqs := requestsTo(f.srv.Requests(), "/insights", "GET")
	after := 0
	for _, r := range reqs {
		if r.Params.Get("after") != "" {
			after++
		}
	}
	if len(reqs) < 4*len(q.Accounts) || after != len(reqs)-len(q.Accounts) || calls != len(reqs) {
		t.Errorf("%d insights requests (%d with a cursor), %d calls for %d accounts: want every page followed", len(reqs), after, calls, len(q.Accounts))
	}
}

// TestScenarioAsync: a request estimated as big runs as an async report:
// POST, polls through Not Started → Started → Running → Completed, then the
// paged results — with the same numbers as the synchronous path.
func TestScenarioAsync(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AsyncRows = 1 })
	f.srv.Scenario(metatest.Async(metatest.JobNotStarted, metatest.JobStarted, metatest.JobRunning, metatest.JobCompleted), metatest.Pages(2))
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("async answers differ from the warehouse")
	}
	reqs := f.srv.Requests()
	posts := requestsTo(reqs, "/insights", "POST")
	if len(posts) != len(q.Accounts) {
		t.Fatalf("%d report runs started, want one per account", len(posts))
	}
	p := posts[0].Params
	if p.Get("level") != "campaign" || p.Get("time_increment") != "1" || p.Get("time_range") == "" || p.Get("access_token") != f.srv.Token() || p.Has("limit") {
		t.Errorf("report run parameters: %v", redactedParams(p))
	}
	if _, inQuery := posts[0].Params["fields"]; !inQuery || posts[0].Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("the report run is not a form POST: %v", posts[0].Header)
	}
	polls, results := 0, 0
	for _, r := range reqs {
		switch {
		case r.Method == "GET" && strings.Count(r.Path, "/") == 2 && !strings.Contains(r.Path, "act_"):
			polls++
			if r.Params.Get("fields") != "async_status,async_percent_completion" {
				t.Errorf("poll fields: %q", r.Params.Get("fields"))
			}
		case r.Method == "GET" && strings.HasSuffix(r.Path, "/insights") && !strings.Contains(r.Path, "act_"):
			results++
		}
	}
	if polls != 4*len(q.Accounts) || results < 2*len(q.Accounts) || calls != len(reqs) {
		t.Errorf("%d polls, %d result pages, %d calls, %d requests", polls, results, calls, len(reqs))
	}
}

// TestScenarioAsyncFailed: a report run that fails fails its accounts as
// unavailable, saying so and what to do.
func TestScenarioAsyncFailed(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AsyncRows = 1 })
	f.srv.Scenario(metatest.Async(metatest.JobRunning, metatest.JobFailed))
	q := normalize(t, f.accounts(t), scenarioQuery)
	_, _, err := f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if len(ae.Failed) != len(q.Accounts) || ae.Kind() != source.Unavailable || !strings.Contains(err.Error(), "Job Failed") || !strings.Contains(err.Error(), q.Accounts[0].AccountID) {
		t.Errorf("err = %v", err)
	}
}

// TestScenarioRateLimitRecovers: throttled requests (error 80000, access back
// at once) are retried with backoff and the query succeeds; every attempt is
// a counted call.
func TestScenarioRateLimitRecovers(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.RateLimit(3, 0))
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("answers after throttling differ from the warehouse")
	}
	if n := len(f.srv.Requests()); calls != n || n != len(q.Accounts)+3 {
		t.Errorf("%d calls, %d requests; want one per account plus the 3 throttled", calls, n)
	}
	if !strings.Contains(f.log.String(), "retrying") {
		t.Error("retries are not logged")
	}
}

// TestScenarioRateLimitFailsFast: when the usage headers say access returns
// in 5 minutes, longer than the deadline allows, the accounts fail at once as
// rate_limited with when to retry — no waiting out the deadline.
func TestScenarioRateLimitFailsFast(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.RateLimit(1000, 5))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err := f.run(ctx, t, q)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v: a throttle longer than the deadline should fail at once", d)
	}
	ae := failedAccounts(t, err)
	if ae.Kind() != source.RateLimited || len(ae.Failed) != len(q.Accounts) {
		t.Fatalf("err = %v", err)
	}
	one := ae.Failed[0]
	if one.RetryAfter != 5*time.Minute || one.Fix != "retry after 300 s" || !strings.Contains(one.Error(), one.AccountID) || !strings.Contains(one.Cause, "80000") {
		t.Errorf("failure: %+v", one)
	}
}

// TestScenarioExpiredToken: an expired token fails every account as
// permission_denied with "re-authorize", and fails the account list.
func TestScenarioExpiredToken(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.ExpiredToken())
	_, calls, err := f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if ae.Kind() != source.PermissionDenied || len(ae.Failed) != len(q.Accounts) || !strings.Contains(ae.Failed[0].Fix, "re-authorize") || !strings.Contains(ae.Failed[0].Cause, "190") {
		t.Errorf("err = %v", err)
	}
	if calls != len(q.Accounts) {
		t.Errorf("%d calls: an expired token must not be retried", calls)
	}
	if _, err := f.conn.Accounts(context.Background()); err == nil || !strings.Contains(err.Error(), "re-authorize") || strings.Contains(err.Error(), f.srv.Token()) {
		t.Errorf("Accounts: %v", err)
	}
}

// TestScenarioPermissionDenied: one account the token may not read fails the
// query naming it, the others answered (no subset passed off as the whole).
func TestScenarioPermissionDenied(t *testing.T) {
	f := newFixture(t, nil)
	accounts := f.accounts(t)
	q := normalize(t, accounts, scenarioQuery)
	bad := q.Accounts[1].AccountID
	f.srv.Scenario(metatest.PermissionDenied(bad))
	_, _, err := f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if len(ae.Failed) != 1 || ae.Failed[0].AccountID != bad || ae.Kind() != source.PermissionDenied || len(ae.Succeeded) != len(q.Accounts)-1 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(ae.Failed[0].Fix, bad) || !strings.Contains(ae.Failed[0].Fix, "ads_read") {
		t.Errorf("fix: %q", ae.Failed[0].Fix)
	}
}

// TestScenarioReduceData: when Meta answers "reduce the amount of data", the
// request runs again as an async report, with the same numbers.
func TestScenarioReduceData(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.ReduceData())
	f.srv.ClearRequests()
	got, _, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("answers after reduce-data differ from the warehouse")
	}
	reqs := f.srv.Requests()
	if g, p := len(requestsTo(reqs, "/insights", "GET")), len(requestsTo(reqs, "/insights", "POST")); p != len(q.Accounts) || g < 2*len(q.Accounts) {
		t.Errorf("%d GET and %d POST insights requests: want one refused GET and one report run per account", g, p)
	}
}

// TestScenarioSlowDeadline: against a slow API the query returns by its
// deadline (plus a small margin) with the context's error.
func TestScenarioSlowDeadline(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.Slow(3 * time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := f.run(ctx, t, q)
	if d := time.Since(start); d > 300*time.Millisecond+700*time.Millisecond {
		t.Errorf("returned after %v, past the 300 ms deadline", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	// The connector alone: Fetch too returns the context's error in time.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	start = time.Now()
	err = live.Fetch(ctx2, f.conn, q, q.Accounts, live.NewBatch())
	if d := time.Since(start); d > 900*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Fetch: %v after %v", err, d)
	}
}

// TestScenarioSlowWithinDeadline: a slow API that answers within the
// deadline gives the right numbers.
func TestScenarioSlowWithinDeadline(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.Slow(50 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, _, err := f.run(ctx, t, q)
	if err != nil || got != warehouseCSV(t, q) {
		t.Errorf("err = %v, or answers differ", err)
	}
}

// TestScenarioFailMidPaging: a 500 in the middle of paging is retried and the
// paging resumes at the same cursor; when it keeps failing, the account fails
// as unavailable once retries are spent.
func TestScenarioFailMidPaging(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxRetries = 2 })
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.Pages(3), metatest.FailMidPaging(2))
	got, _, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("answers after a failed page differ from the warehouse")
	}

	f.srv.Scenario(metatest.Pages(3), metatest.FailMidPaging(1000))
	f.srv.ClearRequests()
	_, calls, err := f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if ae.Kind() != source.Unavailable || len(ae.Failed) != len(q.Accounts) || !strings.Contains(ae.Failed[0].Cause, "HTTP 500") || ae.Failed[0].Fix != "retry later" {
		t.Errorf("err = %v", err)
	}
	if want := len(q.Accounts) * (1 + 3); calls != want {
		t.Errorf("%d calls, want %d (first page, then the second page tried 3 times, per account)", calls, want)
	}
}

// TestWorkersBounded: accounts are fetched in parallel, never more at once
// than Options.Workers.
func TestWorkersBounded(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Workers = 2 })
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.Slow(100 * time.Millisecond))
	start := time.Now()
	if _, _, err := f.run(context.Background(), t, q); err != nil {
		t.Fatal(err)
	}
	// 6 accounts, one 100 ms request each, 2 at a time: about 300 ms.
	if d := time.Since(start); d < 280*time.Millisecond || d > 2*time.Second {
		t.Errorf("took %v with 2 workers for %d accounts", d, len(q.Accounts))
	}
}

// TestRateLimitSpacesRequests: the per-connector rate limit holds across
// workers.
func TestRateLimitSpacesRequests(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.RequestsPerSecond = 20; o.Workers = 6 })
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(metatest.Pages(5))
	start := time.Now()
	if _, _, err := f.run(context.Background(), t, q); err != nil {
		t.Fatal(err)
	}
	n := len(f.srv.Requests())
	// A burst of 20, then 20 per second.
	if min := time.Duration(n-20) * time.Second / 20; time.Since(start) < min-20*time.Millisecond {
		t.Errorf("%d requests in %v: faster than 20 per second", n, time.Since(start))
	}
}

// TestAccountsMatchTheDemo: /me/adaccounts gives the demo's Meta accounts,
// IDs in act_ form.
func TestAccountsMatchTheDemo(t *testing.T) {
	f := newFixture(t, nil)
	got := f.accounts(t)
	want := f.srv.Accounts()
	if len(got) != 6 || len(got) != len(want) {
		t.Fatalf("%d accounts, want 6", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("account %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	r := requestsTo(f.srv.Requests(), "/v25.0/me/adaccounts", "GET")[0]
	if r.Params.Get("fields") != "id,account_id,name,currency,timezone_name,account_status" {
		t.Errorf("fields %q", r.Params.Get("fields"))
	}
}

// TestUnknownAccount: an account the token cannot see (error 100/33) is
// permission_denied, naming it.
func TestUnknownAccount(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	missing := ads.Account{AccountID: "act_999", Platform: "meta_ads", AccountName: "Gone", Currency: "USD", Timezone: "UTC"}
	err := live.Fetch(context.Background(), f.conn, q, []ads.Account{missing}, live.NewBatch())
	ae := failedAccounts(t, err)
	if ae.Kind() != source.PermissionDenied || ae.Failed[0].AccountID != "act_999" || !strings.Contains(ae.Failed[0].Cause, "100/33") {
		t.Errorf("err = %v", err)
	}
}

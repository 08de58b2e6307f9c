package tiktok

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

// scenarioQuery is a campaign-level daily query over all TikTok advertisers.
const scenarioQuery = `{"metrics":["spend","clicks","conversions","roas"],"dimensions":["account_name","campaign_name"],"platforms":["tiktok_ads"],"time_granularity":"daily","date_preset":"last_14d"}`

// TestScenarioPages: reports split over several pages are read to
// page_info.total_page with the same numbers, one request per page.
func TestScenarioPages(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(tiktoktest.Pages(5))
	f.srv.ClearRequests()
	got, calls, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("paged answers differ from the warehouse")
	}
	reqs := reports(f.srv.Requests())
	pages := map[string]int{}
	for _, r := range reqs {
		pages[r.Params.Get("advertiser_id")]++
	}
	for _, a := range q.Accounts {
		if pages[a.AccountID] < 5 {
			t.Errorf("advertiser %s read in %d pages, want 5", a.AccountID, pages[a.AccountID])
		}
	}
	if calls != len(reqs) {
		t.Errorf("%d calls counted for %d requests", calls, len(reqs))
	}
}

// TestScenarioRateLimit: 40100 is retried (after Retry-After) and the answer
// is complete; a wait longer than MaxRetryWait fails the advertisers at once as
// rate_limited, saying when to retry.
func TestScenarioRateLimit(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(tiktoktest.RateLimit(2, 0))
	f.srv.ClearRequests()
	got, _, err := f.run(context.Background(), t, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != warehouseCSV(t, q) {
		t.Error("the answer after retries differs from the warehouse")
	}
	if n := len(reports(f.srv.Requests())); n != len(q.Accounts)+2 {
		t.Errorf("%d report requests, want one per advertiser plus the 2 throttled", n)
	}

	f = newFixture(t, func(o *Options) { o.MaxRetryWait = time.Second })
	q = normalize(t, f.accounts(t), scenarioQuery)
	f.srv.Scenario(tiktoktest.RateLimit(100, 120))
	_, _, err = f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if ae.Kind() != source.RateLimited || len(ae.Failed) != len(q.Accounts) {
		t.Fatalf("kind %s, %d failed: %v", ae.Kind(), len(ae.Failed), err)
	}
	if fe := ae.Failed[0]; fe.RetryAfter != 120*time.Second || !strings.Contains(fe.Fix, "120 s") || !strings.Contains(fe.Cause, "40100") {
		t.Errorf("failure %+v: want the wait of 120 s and TikTok's code", fe)
	}
}

// TestScenarioFailures: each failure TikTok answers with becomes the account
// failure of its kind, with TikTok's code in the cause and a fix.
func TestScenarioFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     func(*Options)
		scenario []tiktoktest.Option
		kind     outcome.Code
		code     string
		retried  bool
	}{
		{"expired token", nil, []tiktoktest.Option{tiktoktest.ExpiredToken()}, source.PermissionDenied, "40102", false},
		{"wrong token", func(o *Options) { o.AccessToken = "not-the-token" }, nil, source.PermissionDenied, "40105", false},
		{"permission", nil, []tiktoktest.Option{tiktoktest.PermissionDenied("7254490217683350144")}, source.PermissionDenied, "40001", false},
		{"system error", nil, []tiktoktest.Option{tiktoktest.SystemError(1000)}, source.Unavailable, "50000", true},
		{"HTTP 503", nil, []tiktoktest.Option{tiktoktest.ServerError(1000)}, source.Unavailable, "HTTP 503", true},
		{"malformed JSON", nil, []tiktoktest.Option{tiktoktest.Malformed(1000)}, source.Unavailable, "unexpected TikTok response", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(o *Options) {
				o.AdvertiserIDs = []string{"7201845539016472318", "7254490217683350144"}
				o.MaxRetries = 2
				if tc.opts != nil {
					tc.opts(o)
				}
			})
			accounts := tiktoktest.New(t).Accounts()[:2]
			q := normalize(t, accounts, scenarioQuery)
			f.srv.Scenario(tc.scenario...)
			f.srv.ClearRequests()
			_, _, err := f.run(context.Background(), t, q)
			ae := failedAccounts(t, err)
			fe := ae.Failed[0]
			if fe.Kind != tc.kind || !strings.Contains(fe.Cause, tc.code) || fe.Fix == "" {
				t.Errorf("failure %+v: want kind %s naming %s, with a fix", fe, tc.kind, tc.code)
			}
			if tc.name == "permission" && (len(ae.Failed) != 1 || fe.AccountID != "7254490217683350144") {
				t.Errorf("failed %v: want only the denied advertiser", ae.Failed)
			}
			n := len(reports(f.srv.Requests()))
			if want := len(q.Accounts) * map[bool]int{true: 3, false: 1}[tc.retried]; tc.name != "permission" && n != want {
				t.Errorf("%d report requests, want %d (retried %v)", n, want, tc.retried)
			}
		})
	}
}

// TestScenarioTransientRecovers: a system error and an HTTP 503 are retried and
// the answer is complete.
func TestScenarioTransientRecovers(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	want := warehouseCSV(t, q)
	for _, sc := range []tiktoktest.Option{tiktoktest.SystemError(2), tiktoktest.ServerError(2), tiktoktest.Malformed(0)} {
		f.srv.Scenario(sc)
		got, _, err := f.run(context.Background(), t, q)
		if err != nil || got != want {
			t.Errorf("after transient failures: %v; same numbers %v", err, got == want)
		}
	}
}

// TestScenarioRejected: a request TikTok refuses (a combination of audience
// dimensions, 40002) fails as rejected with TikTok's message and a fix
// naming the breakdowns, without retries.
func TestScenarioRejected(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), `{"metrics":["spend"],"dimensions":["country","device","publisher_platform"],"platforms":["tiktok_ads"],"date_preset":"last_7d"}`)
	f.srv.ClearRequests()
	f.srv.Scenario(tiktoktest.RejectCombination(len(q.Accounts)))
	_, _, err := f.run(context.Background(), t, q)
	ae := failedAccounts(t, err)
	if fe := ae.Failed[0]; fe.Kind != source.Rejected || !strings.Contains(fe.Cause, "40002") || !strings.Contains(fe.Fix, "fewer") {
		t.Errorf("failure %+v", fe)
	}
	if n := len(reports(f.srv.Requests())); n != len(q.Accounts) {
		t.Errorf("%d requests: a rejected request is not retried", n)
	}
}

// TestAccountsConfigured: with advertiser IDs and no app credentials, the
// advertisers are the configured ones, their details from /advertiser/info/
// (no /oauth2/advertiser/get/); with the app's credentials, every authorized
// advertiser. Wrong app credentials fail with a fix.
func TestAccountsConfigured(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AppID, o.AppSecret, o.AdvertiserIDs = "", "", []string{"7318862045571299861"} })
	got := f.accounts(t)
	if len(got) != 1 || got[0].AccountName != "Lumen Outdoor TikTok (Agency)" || got[0].Currency != "USD" || got[0].Timezone != "America/Denver" || got[0].Status != "ACTIVE" {
		t.Errorf("accounts %+v", got)
	}
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Path, "oauth2") {
			t.Errorf("listed authorized advertisers though IDs were configured")
		}
	}
	f = newFixture(t, nil)
	all := f.accounts(t)
	if fmt.Sprint(ids(all)) != fmt.Sprint(ids(f.srv.Accounts())) {
		t.Errorf("accounts %v, want %v", ids(all), ids(f.srv.Accounts()))
	}
	f = newFixture(t, func(o *Options) { o.AppSecret = "wrong-secret-value" })
	_, err := f.conn.Accounts(context.Background())
	if err == nil || !strings.Contains(err.Error(), "40101") || !strings.Contains(err.Error(), "app_secret") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("wrong app secret: %v", err)
	}
}

func ids(accts []ads.Account) []string {
	var out []string
	for _, a := range accts {
		out = append(out, a.AccountID)
	}
	return out
}

// TestSecretsNeverLogged: the token travels only in the Access-Token header
// (never in a URL), and neither the token nor the app secret appears in the
// connector's debug log or its errors, whatever fails.
func TestSecretsNeverLogged(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxRetries = 1 })
	accounts := f.accounts(t)
	q := normalize(t, accounts, scenarioQuery)
	var errs []string
	for _, sc := range []tiktoktest.Option{tiktoktest.RateLimit(1000, 0), tiktoktest.ExpiredToken(), tiktoktest.SystemError(1000), tiktoktest.ServerError(1000), tiktoktest.Malformed(1000)} {
		f.srv.Scenario(sc)
		_, _, err := f.run(context.Background(), t, q)
		if err == nil {
			t.Fatal("want a failure")
		}
		errs = append(errs, err.Error(), fmt.Sprintf("%+v", failedAccounts(t, err).Failed[0]))
	}
	f.srv.Scenario(tiktoktest.ServerError(1000))
	_, err := f.conn.Accounts(context.Background())
	errs = append(errs, fmt.Sprint(err))
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Params.Encode(), f.srv.Token()) {
			t.Fatalf("the token was sent in a URL")
		}
		if r.Header.Get("Access-Token") != f.srv.Token() {
			t.Fatalf("a request without the Access-Token header")
		}
	}
	for _, s := range append(errs, f.log.String()) {
		if strings.Contains(s, f.srv.Token()) || strings.Contains(s, f.srv.AppSecret()) {
			t.Fatalf("a secret leaked: %.300s", s)
		}
	}
	if !strings.Contains(f.log.String(), "report/integrated/get") {
		t.Error("the log does not name the requests: the test would prove nothing")
	}
}

// TestContextDeadline: a query whose deadline passes ends with ctx's error,
// not a partial answer.
func TestContextDeadline(t *testing.T) {
	f := newFixture(t, nil)
	q := normalize(t, f.accounts(t), scenarioQuery)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := f.run(ctx, t, q)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

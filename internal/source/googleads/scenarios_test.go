package googleads

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// scenarioQuery is a campaign-level daily query over every Google account.
const scenarioQuery = `{"platforms":["google_ads"],"metrics":["spend","clicks","conversions","conversion_value"],"dimensions":["campaign_name"],"time_granularity":"daily","date_preset":"last_14d"}`

// baseline is the scenario query's CSV with no failure.
func baseline(t *testing.T) string {
	t.Helper()
	h := newHarness(t, googleadstest.Config{})
	q := normalize(t, h.accounts(t), scenarioQuery)
	tab, err := live.New(nil, h.conn).Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return csvOf(t, tab)
}

// TestScenarios runs every failure scenario of the fake through the connector
// and the live source: each ends with the right data, or the right error
// naming the accounts, within the deadline.
func TestScenarios(t *testing.T) {
	want := baseline(t)
	const deadline = 3 * time.Second
	const victim = "617-204-8851"
	type check func(t *testing.T, h *harness, csv string, err error, calls int)
	ok := func(minCalls int) check {
		return func(t *testing.T, h *harness, csv string, err error, calls int) {
			if err != nil {
				t.Fatalf("want data, got %v", err)
			}
			if csv != want {
				t.Errorf("data differs from the baseline: %s", firstDiff(want, csv))
			}
			if calls < minCalls {
				t.Errorf("%d source calls, want at least %d (retries count)", calls, minCalls)
			}
		}
	}
	failsWith := func(kind outcome.Code, accounts int, texts ...string) check {
		return func(t *testing.T, h *harness, csv string, err error, calls int) {
			var ae *source.AccountsError
			if !errors.As(err, &ae) {
				t.Fatalf("want a *source.AccountsError, got %v", err)
			}
			if ae.Kind() != kind || len(ae.Failed) != accounts {
				t.Fatalf("want %d accounts failing with %s, got %s: %v", accounts, kind, ae.Kind(), err)
			}
			for _, f := range ae.Failed {
				if f.Platform != Platform || f.AccountID == "" || f.Cause == "" || f.Fix == "" {
					t.Errorf("incomplete account error: %+v", f)
				}
			}
			for _, s := range texts {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not say %q: %v", s, err)
				}
			}
		}
	}
	for _, tc := range []struct {
		name     string
		scenario googleadstest.Scenario
		check    check
	}{
		{"pages", googleadstest.Scenario{BatchSize: 5}, ok(5)},
		{"slow but in time", googleadstest.Scenario{Latency: 100 * time.Millisecond, BatchDelay: 20 * time.Millisecond, BatchSize: 50}, ok(5)},
		{"rate limited once, retried", googleadstest.Scenario{Failure: googleadstest.RateLimited, Times: 2, RetryDelay: 50 * time.Millisecond}, ok(7)},
		{"rate limited for 30s", googleadstest.Scenario{Failure: googleadstest.RateLimited, Customers: []string{victim}, RetryDelay: 30 * time.Second},
			failsWith(source.RateLimited, 1, victim, "RESOURCE_EXHAUSTED", "retry after 30s")},
		{"expired token, refreshed", googleadstest.Scenario{Failure: googleadstest.ExpiredToken, Times: 1}, ok(7)},
		{"expired token for good", googleadstest.Scenario{Failure: googleadstest.ExpiredToken},
			failsWith(source.PermissionDenied, 5, "UNAUTHENTICATED", "re-authorize")},
		{"refresh token revoked", googleadstest.Scenario{Failure: googleadstest.ExpiredToken, RevokeRefreshToken: true},
			failsWith(source.PermissionDenied, 5, "invalid_grant", "re-authorize")},
		{"permission denied", googleadstest.Scenario{Failure: googleadstest.PermissionDenied, Customers: []string{victim}},
			failsWith(source.PermissionDenied, 1, victim, "USER_PERMISSION_DENIED", "login_customer_id")},
		{"500, retried", googleadstest.Scenario{Failure: googleadstest.Internal, Times: 2}, ok(7)},
		{"500 for good", googleadstest.Scenario{Failure: googleadstest.Internal, Customers: []string{victim}},
			failsWith(source.Unavailable, 1, victim, "INTERNAL", "retry")},
		{"500 in the middle, retried", googleadstest.Scenario{Failure: googleadstest.MidStream, Times: 3, BatchSize: 10}, ok(8)},
		{"500 in the middle for good", googleadstest.Scenario{Failure: googleadstest.MidStream, Customers: []string{victim}, BatchSize: 10},
			failsWith(source.Unavailable, 1, victim, "INTERNAL")},
		{"truncated, retried", googleadstest.Scenario{Failure: googleadstest.Truncated, Times: 1, BatchSize: 10}, ok(6)},
		{"truncated for good", googleadstest.Scenario{Failure: googleadstest.Truncated, Customers: []string{victim}, BatchSize: 10},
			failsWith(source.Unavailable, 1, victim, "truncated")},
		{"not JSON", googleadstest.Scenario{Failure: googleadstest.Malformed, Customers: []string{victim}},
			failsWith(source.Unavailable, 1, victim, "unreadable")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, googleadstest.Config{})
			q := normalize(t, h.accounts(t), scenarioQuery)
			h.fake.SetScenario(tc.scenario)
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			var calls source.Calls
			start := time.Now()
			tab, err := live.New(nil, h.conn).Query(source.WithCalls(ctx, &calls), q)
			if el := time.Since(start); el > deadline {
				t.Errorf("took %v, past the %v deadline", el, deadline)
			}
			csv := ""
			if err == nil {
				csv = csvOf(t, tab)
			}
			tc.check(t, h, csv, err, calls.N())
			checkNoSecrets(t, h, err)
		})
	}
}

// TestDeadline: a slow API (before the first byte, or between batches) is
// abandoned at the deadline, with the context's error, promptly.
func TestDeadline(t *testing.T) {
	for _, sc := range []googleadstest.Scenario{
		{Latency: 5 * time.Second},
		{BatchDelay: 5 * time.Second, BatchSize: 3},
		{Failure: googleadstest.RateLimited, RetryDelay: 5 * time.Second}, // too long to wait: fails fast instead
	} {
		h := newHarness(t, googleadstest.Config{}, func(o *Options) { o.MaxRetryWait = time.Minute })
		q := normalize(t, h.accounts(t), scenarioQuery)
		h.fake.SetScenario(sc)
		const deadline = 300 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		_, err := live.New(nil, h.conn).Query(ctx, q)
		el := time.Since(start)
		cancel()
		if el > deadline+200*time.Millisecond {
			t.Errorf("%+v: took %v for a %v deadline", sc, el, deadline)
		}
		var ae *source.AccountsError
		switch {
		case sc.Failure == googleadstest.RateLimited:
			if !errors.As(err, &ae) || ae.Kind() != source.RateLimited || ae.Failed[0].RetryAfter != 5*time.Second {
				t.Errorf("%+v: want rate_limited with RetryAfter 5s at once, got %v", sc, err)
			}
		case !errors.Is(err, context.DeadlineExceeded):
			t.Errorf("%+v: want the deadline's error, got %v", sc, err)
		}
	}
}

// TestWorkersBoundConcurrency: no more requests in flight than Workers.
func TestWorkersBoundConcurrency(t *testing.T) {
	h := newHarness(t, googleadstest.Config{}, func(o *Options) { o.Workers = 2 })
	q := normalize(t, h.accounts(t), scenarioQuery)
	h.fake.SetScenario(googleadstest.Scenario{Latency: 100 * time.Millisecond})
	start := time.Now()
	if _, err := live.New(nil, h.conn).Query(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	// 5 accounts, 2 at a time, 100ms each: at least 3 rounds.
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("5 accounts with 2 workers took %v: more than 2 ran at once", el)
	}
}

// TestRateLimit: the connector spaces its requests to RequestsPerSecond.
func TestRateLimit(t *testing.T) {
	// 20 requests/s, bursts of 1 (one worker).
	h := newHarness(t, googleadstest.Config{}, func(o *Options) { o.RequestsPerSecond, o.Workers = 20, 1 })
	q := normalize(t, h.accounts(t), scenarioQuery)
	start := time.Now()
	if _, err := live.New(nil, h.conn).Query(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Errorf("5 requests at 20/s took %v, want ≥ 200ms", el)
	}
}

// TestAccountsErrors: a listing that fails says why and what to do.
func TestAccountsErrors(t *testing.T) {
	for _, tc := range []struct {
		scenario googleadstest.Scenario
		texts    []string
	}{
		{googleadstest.Scenario{Failure: googleadstest.ExpiredToken}, []string{"permission_denied", "UNAUTHENTICATED", "re-authorize"}},
		{googleadstest.Scenario{RevokeRefreshToken: true}, []string{"permission_denied", "invalid_grant", "refresh_token"}},
		{googleadstest.Scenario{Failure: googleadstest.RateLimited, RetryDelay: time.Minute}, []string{"rate_limited", "retry after 1m0s"}},
		{googleadstest.Scenario{Failure: googleadstest.PermissionDenied, Customers: []string{"725-118-6403"}}, []string{"725-118-6403", "permission_denied"}},
	} {
		h := newHarness(t, googleadstest.Config{})
		h.fake.SetScenario(tc.scenario)
		_, err := h.conn.Accounts(context.Background())
		if err == nil {
			t.Fatalf("%+v: no error", tc.scenario)
		}
		for _, s := range tc.texts {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%+v: error does not say %q: %v", tc.scenario, s, err)
			}
		}
		checkNoSecrets(t, h, err)
	}
}

package query

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// testNow is the fixed clock of the tests: Sunday 2026-03-15, 10:00 UTC (the same
// day in every test account's timezone).
var testNow = time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)

func clockAt(t time.Time) func() time.Time { return func() time.Time { return t } }

// testAccounts are 14 accounts like the demo dataset's: 6 Meta, 5 Google, 3 TikTok;
// mostly USD with EUR and ARS ones; New York, Los Angeles, Madrid, Buenos Aires and
// UTC timezones. Slices are fresh on every call.
func testAccounts() []ads.Account {
	return []ads.Account{
		{AccountID: "act_1011", Platform: "meta_ads", AccountName: "Acme Shoes US", Currency: "USD", Timezone: "America/New_York", Status: "ACTIVE"},
		{AccountID: "act_1012", Platform: "meta_ads", AccountName: "Acme Apparel US", Currency: "USD", Timezone: "America/New_York", Status: "ACTIVE"},
		{AccountID: "act_1013", Platform: "meta_ads", AccountName: "Acme Outlet", Currency: "USD", Timezone: "America/New_York", Status: "ACTIVE"},
		{AccountID: "act_1014", Platform: "meta_ads", AccountName: "Acme Europe", Currency: "EUR", Timezone: "Europe/Madrid", Status: "ACTIVE"},
		{AccountID: "act_1015", Platform: "meta_ads", AccountName: "Acme Brand", Currency: "USD", Timezone: "America/New_York", Status: "ACTIVE"},
		{AccountID: "act_1016", Platform: "meta_ads", AccountName: "Acme Argentina", Currency: "ARS", Timezone: "America/Argentina/Buenos_Aires", Status: "ACTIVE"},
		{AccountID: "123-456-7801", Platform: "google_ads", AccountName: "Acme Search US", Currency: "USD", Timezone: "America/Los_Angeles", Status: "ENABLED"},
		{AccountID: "123-456-7802", Platform: "google_ads", AccountName: "Acme Shopping", Currency: "USD", Timezone: "America/Los_Angeles", Status: "ENABLED"},
		{AccountID: "123-456-7803", Platform: "google_ads", AccountName: "Acme YouTube", Currency: "USD", Timezone: "America/Los_Angeles", Status: "ENABLED"},
		{AccountID: "123-456-7804", Platform: "google_ads", AccountName: "Acme Performance Max", Currency: "USD", Timezone: "America/Los_Angeles", Status: "ENABLED"},
		{AccountID: "123-456-7805", Platform: "google_ads", AccountName: "Acme Search EU", Currency: "EUR", Timezone: "Europe/Madrid", Status: "ENABLED"},
		{AccountID: "7100000000000000001", Platform: "tiktok_ads", AccountName: "Acme TikTok US", Currency: "USD", Timezone: "UTC", Status: "ACTIVE"},
		{AccountID: "7100000000000000002", Platform: "tiktok_ads", AccountName: "Acme TikTok Creators", Currency: "USD", Timezone: "UTC", Status: "ACTIVE"},
		{AccountID: "7100000000000000003", Platform: "tiktok_ads", AccountName: "Acme TikTok Test", Currency: "USD", Timezone: "UTC", Status: "DISABLED"},
	}
}

// Handy account groups.
var (
	usdMeta   = []string{"act_1011", "act_1012"}             // USD, New York
	laGoogle  = []string{"123-456-7801", "123-456-7802"}     // USD, Los Angeles
	mixedCurr = []string{"act_1011", "act_1014", "act_1016"} // USD, EUR, ARS
)

func testOptions() Options {
	return Options{Accounts: testAccounts(), Now: clockAt(testNow)}
}

// base is a minimal valid query: two USD Meta accounts, spend, default dates.
func base() Args {
	return Args{AccountIDs: slices.Clone(usdMeta), Metrics: []string{"spend"}}
}

func intp(i int) *int { return &i }

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// mustNormalize normalizes a with the test options and fails on error.
func mustNormalize(t *testing.T, a Args) *Query {
	t.Helper()
	return mustNormalizeWith(t, a, testOptions())
}

func mustNormalizeWith(t *testing.T, a Args, opt Options) *Query {
	t.Helper()
	q, err := Normalize(a, opt)
	if err != nil {
		t.Fatalf("Normalize(%+v): %v", a, err)
	}
	if q == nil {
		t.Fatalf("Normalize(%+v) returned nil query and nil error", a)
	}
	return q
}

// mustFail normalizes a with the test options and returns its *Error, failing the
// test on success or on another kind of error. It checks every problem is complete.
func mustFail(t *testing.T, a Args) *Error {
	t.Helper()
	return mustFailWith(t, a, testOptions())
}

func mustFailWith(t *testing.T, a Args, opt Options) *Error {
	t.Helper()
	q, err := Normalize(a, opt)
	if err == nil {
		t.Fatalf("Normalize(%+v) succeeded (%+v); want an error", a, q)
	}
	if q != nil {
		t.Errorf("Normalize returned a query along with error %v", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Normalize(%+v) error %T %v; want *Error", a, err, err)
	}
	checkProblems(t, e)
	return e
}

// checkProblems asserts the contract of *Error: at least one problem, each naming
// the field and the problem, and a non-empty message.
func checkProblems(t testing.TB, e *Error) {
	t.Helper()
	if len(e.Problems) == 0 {
		t.Errorf("*Error without problems")
	}
	if e.Error() == "" {
		t.Errorf("*Error with an empty message")
	}
	for i, p := range e.Problems {
		if strings.TrimSpace(p.Field) == "" || strings.TrimSpace(p.Problem) == "" {
			t.Errorf("problem %d incomplete: %+v", i, p)
		}
		if p.String() == "" {
			t.Errorf("problem %d: empty String()", i)
		}
	}
}

// problemAt returns the problem whose Field is field, or fails.
func problemAt(t *testing.T, e *Error, field string) Problem {
	t.Helper()
	for _, p := range e.Problems {
		if p.Field == field {
			return p
		}
	}
	t.Fatalf("no problem at %q; problems: %v", field, e)
	return Problem{}
}

func hasProblemAt(e *Error, field string) bool {
	for _, p := range e.Problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// changesOf returns the changes of a type.
func changesOf(q *Query, typ string) []Change {
	var out []Change
	for _, c := range q.Changes {
		if c.Type == typ {
			out = append(out, c)
		}
	}
	return out
}

// oneChange returns the only change of a type, or fails.
func oneChange(t *testing.T, q *Query, typ string) Change {
	t.Helper()
	cs := changesOf(q, typ)
	if len(cs) != 1 {
		t.Fatalf("%d %s changes, want 1; changes: %+v", len(cs), typ, q.Changes)
	}
	if cs[0].Detail == "" {
		t.Errorf("%s change without detail: %+v", typ, cs[0])
	}
	return cs[0]
}

func noChange(t *testing.T, q *Query, typ string) {
	t.Helper()
	if cs := changesOf(q, typ); len(cs) > 0 {
		t.Errorf("unexpected %s changes: %+v", typ, cs)
	}
}

func TestTestAccounts(t *testing.T) {
	accts := testAccounts()
	count := map[string]int{}
	ids := map[string]bool{}
	for _, a := range accts {
		count[a.Platform]++
		if ids[a.AccountID] {
			t.Errorf("duplicate id %s", a.AccountID)
		}
		ids[a.AccountID] = true
		if _, err := time.LoadLocation(a.Timezone); err != nil {
			t.Errorf("%s: %v", a.AccountID, err)
		}
	}
	if len(accts) != 14 || count["meta_ads"] != 6 || count["google_ads"] != 5 || count["tiktok_ads"] != 3 {
		t.Errorf("test accounts: %d, %v", len(accts), count)
	}
	if testNow.Weekday() != time.Sunday {
		t.Errorf("testNow is a %s", testNow.Weekday())
	}
}

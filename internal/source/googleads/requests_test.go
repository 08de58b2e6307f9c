package googleads

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.gaql snapshots")

// gaqlSnapshots name the GAQL each query shape sends (testdata/NAME.gaql).
var gaqlSnapshots = []struct{ name, raw string }{
	{"account_total", `{"metrics":["spend","impressions","clicks","ctr","conversions","conversion_value","roas","video_views"],"dimensions":["account_name"],"date_range":{"start":"2025-11-01","end":"2026-01-31"}}`},
	{"campaign_daily", `{"metrics":["spend","clicks","cpc"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-28"}}`},
	{"campaign_weekly", `{"metrics":["spend","conversions","cpa"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_range":{"start":"2025-12-03","end":"2026-01-20"}}`},
	{"objective_monthly", `{"metrics":["spend","cpm"],"dimensions":["account_name","campaign_objective"],"time_granularity":"monthly","date_range":{"start":"2025-09-17","end":"2026-02-10"}}`},
	{"adset_total", `{"metrics":["spend","conversion_rate"],"dimensions":["campaign_name","adset_name"],"date_preset":"last_30d"}`},
	{"ad_daily", `{"metrics":["spend"],"dimensions":["ad_name"],"time_granularity":"daily","date_preset":"last_7d"}`},
	{"device_country", `{"metrics":["spend","reach"],"dimensions":["device","country"],"date_preset":"last_30d"}`},
	{"publisher", `{"metrics":["video_views"],"dimensions":["publisher_platform"],"date_preset":"last_30d"}`},
	{"metric_filter", `{"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_preset":"last_90d","filters":[{"field":"ctr","operator":"GREATER_THAN","value":2}]}`},
	{"pushed_filters", `{"metrics":["spend"],"dimensions":["account_name"],"date_preset":"last_30d","filters":[
		{"field":"campaign_name","operator":"CONTAINS","value":"Spring 50% [Sale]"},
		{"field":"adset_name","operator":"EQUALS","value":"Brand - Exact"},
		{"field":"ad_name","operator":"STARTS_WITH","value":"RSA_"},
		{"field":"campaign_id","operator":"IN","value":["21234567890","20987654321"]},
		{"field":"adset_id","operator":"NOT_EQUALS","value":"123456789012"},
		{"field":"campaign_status","operator":"NOT_IN","value":["archived","paused"]},
		{"field":"campaign_objective","operator":"EQUALS","value":"performance_max"},
		{"field":"device","operator":"IN","value":["mobile","Tablet"]},
		{"field":"publisher_platform","operator":"NOT_EQUALS","value":"display"}]}`},
	{"country_filter", `{"metrics":["spend"],"dimensions":["campaign_name"],"date_preset":"last_30d","filters":[{"field":"country","operator":"IN","value":["us","CA"]}]}`},
	{"kept_filters", `{"metrics":["spend"],"dimensions":["account_name"],"date_preset":"last_30d","filters":[
		{"field":"campaign_name","operator":"NOT_CONTAINS","value":"test"},
		{"field":"campaign_name","operator":"IN","value":["A","B"]},
		{"field":"adset_name","operator":"EQUALS","value":"Größe"},
		{"field":"ad_name","operator":"CONTAINS","value":"it's"},
		{"field":"campaign_id","operator":"EQUALS","value":"abc"},
		{"field":"device","operator":"EQUALS","value":"smartwatch"},
		{"field":"account_name","operator":"CONTAINS","value":"brightside"}]}`},
	// The breakdown sets other than delivery: per campaign, from their views.
	{"age_weekly", `{"metrics":["spend","clicks","conversions","video_views"],"dimensions":["age"],"time_granularity":"weekly","date_range":{"start":"2025-12-03","end":"2026-01-20"}}`},
	{"gender_filter", `{"metrics":["spend","ctr"],"dimensions":["campaign_name","gender"],"time_granularity":"daily","date_preset":"last_7d","filters":[
		{"field":"gender","operator":"IN","value":["female","Male"]},{"field":"campaign_status","operator":"EQUALS","value":"active"}]}`},
	{"age_filter", `{"metrics":["spend"],"dimensions":["account_name"],"date_preset":"last_30d","filters":[{"field":"age","operator":"NOT_EQUALS","value":"65+"}]}`},
	{"conversion_action_daily", `{"metrics":["conversions","conversion_value"],"dimensions":["campaign_name","conversion_action"],"time_granularity":"daily","date_preset":"last_7d"}`},
	{"conversion_action_total", `{"metrics":["conversion_value"],"dimensions":["conversion_action"],"date_preset":"last_30d","filters":[{"field":"conversion_action","operator":"EQUALS","value":"Purchase"}]}`},
}

// TestGAQLSnapshots: the GAQL text each query sends, checked against
// testdata/*.gaql (go test -run TestGAQLSnapshots -update rewrites them), and
// accepted by the fake's parser of the documented grammar.
func TestGAQLSnapshots(t *testing.T) {
	accts := []ads.Account{{AccountID: "617-204-8851", Platform: Platform, AccountName: "Brightside Skincare - Search", Currency: "USD", Timezone: "America/New_York", Status: "ACTIVE"}}
	for _, s := range gaqlSnapshots {
		q := normalize(t, accts, s.raw)
		p, err := compileQuery(q)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := p.gaql() + "\n"
		path := filepath.Join("testdata", s.name+".gaql")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create it)", s.name, err)
		}
		if got != string(want) {
			t.Errorf("%s: GAQL changed:\n got  %s want %s", s.name, got, want)
		}
		if _, err := googleadstest.ParseQuery(p.gaql()); err != nil {
			t.Errorf("%s: the fake rejects the GAQL: %v", s.name, err)
		}
	}
}

// TestRequestShape: requests follow the documented shape — POST
// /v25/customers/{digits}/googleAds:searchStream with a JSON {"query"} body,
// Authorization: Bearer, login-customer-id for a manager, developer-token only
// when configured — and listing uses listAccessibleCustomers.
func TestRequestShape(t *testing.T) {
	t.Run("direct", func(t *testing.T) {
		h := newHarness(t, googleadstest.Config{})
		accts := h.accounts(t)
		reqs := h.fake.Requests()
		if len(reqs) != 1+2*len(accts) || reqs[0].Path != "/v25/customers:listAccessibleCustomers" || reqs[0].Method != "GET" {
			t.Fatalf("listing: want listAccessibleCustomers then a customer and a conversion_action query each, got %+v", reqs)
		}
		perCustomer := map[string][]string{}
		for _, r := range reqs[1:] {
			if r.Method != "POST" || r.Path != "/v25/customers/"+r.CustomerID+"/googleAds:searchStream" {
				t.Errorf("query: %+v", r)
			}
			perCustomer[r.CustomerID] = append(perCustomer[r.CustomerID], r.Query)
		}
		for cid, qs := range perCustomer {
			if len(qs) != 2 || qs[0] != customerGAQL || qs[1] != conversionActionGAQL {
				t.Errorf("customer %s: want the customer query then the conversion_action query, got %q", cid, qs)
			}
		}
		h.fake.ResetLog()
		q := normalize(t, accts, scenarioQuery)
		if _, err := live.New(nil, h.conn).Query(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		for _, r := range h.fake.Requests() {
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "+googleadstest.AccessTokenPrefix) {
				t.Errorf("Authorization %q", r.Header.Get("Authorization"))
			}
			if r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
			}
			for _, h := range []string{"login-customer-id", "developer-token"} {
				if _, ok := r.Header[httpKey(h)]; ok {
					t.Errorf("%s sent though not configured", h)
				}
			}
			if len(r.CustomerID) != 10 || digits(r.CustomerID) != r.CustomerID {
				t.Errorf("customer ID in the path %q: want 10 digits", r.CustomerID)
			}
		}
	})
	t.Run("manager, developer token, version", func(t *testing.T) {
		const manager, devToken = "999-000-1111", "fake-dev-token-DO-NOT-LEAK"
		h := newHarness(t, googleadstest.Config{ManagerID: manager, DeveloperToken: devToken, APIVersion: "v26"}, func(o *Options) {
			o.LoginCustomerID, o.DeveloperToken, o.APIVersion = manager, devToken, "v26"
		})
		accts := h.accounts(t)
		if len(accts) != len(h.fake.Accounts()) {
			t.Fatalf("manager clients: %v", accts)
		}
		reqs := h.fake.Requests()
		if len(reqs) != 1+len(accts) || reqs[0].CustomerID != "9990001111" || reqs[0].Query != customerClientGAQL {
			t.Fatalf("manager listing: want one customer_client query on the manager, then one conversion_action query per client, got %+v", reqs)
		}
		for _, r := range reqs[1:] {
			if r.Query != conversionActionGAQL || r.CustomerID == "9990001111" {
				t.Errorf("client query: %+v", r)
			}
		}
		q := normalize(t, accts, scenarioQuery)
		if _, err := live.New(nil, h.conn).Query(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		for _, r := range h.fake.Requests() {
			if r.Header.Get("login-customer-id") != "9990001111" || r.Header.Get("developer-token") != devToken ||
				!strings.HasPrefix(r.Path, "/v26/") {
				t.Errorf("headers or path: %s %v", r.Path, r.Header)
			}
		}
		checkNoSecrets(t, h, nil)
	})
	t.Run("manager clients need login-customer-id", func(t *testing.T) {
		h := newHarness(t, googleadstest.Config{ManagerID: "999-000-1111"}, func(o *Options) {
			o.CustomerIDs = []string{"617-204-8851"}
		})
		_, err := h.conn.Accounts(context.Background())
		var ae *source.AccountError
		if !errors.As(err, &ae) || ae.Kind != source.PermissionDenied || ae.AccountID != "617-204-8851" ||
			!strings.Contains(ae.Fix, "login_customer_id") {
			t.Fatalf("want permission_denied for 617-204-8851 suggesting login_customer_id, got %v", err)
		}
	})
}

func httpKey(h string) string {
	parts := strings.Split(h, "-")
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "-")
}

// TestAccounts: the accounts are the demo's Google accounts with their names,
// currencies, time zones and statuses, IDs written 123-456-7890; each counts
// conversions per conversion action (catalog.PerActionWindow), and its
// ConversionActions are its enabled primary actions, sorted (the fake also
// serves secondary and removed actions, which must not be listed).
func TestAccounts(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	var calls source.Calls
	got, err := h.conn.Accounts(source.WithCalls(context.Background(), &calls))
	if err != nil {
		t.Fatal(err)
	}
	want := h.fake.Accounts()
	if len(got) != len(want) {
		t.Fatalf("got %d accounts, want %d", len(got), len(want))
	}
	byID := map[string]ads.Account{}
	for _, a := range got {
		byID[a.AccountID] = a
	}
	withActions := 0
	for _, w := range want {
		names := strings.Split(w.ConversionActions, ", ")
		slices.Sort(names)
		w.ConversionActions = strings.Join(names, ", ")
		w.AttributionWindow = catalog.PerActionWindow
		if byID[w.AccountID] != w {
			t.Errorf("account %s: got %+v, want %+v", w.AccountID, byID[w.AccountID], w)
		}
		if w.ConversionActions != "" {
			withActions++
		}
	}
	if withActions == 0 {
		t.Error("no demo account has conversion actions: the test proves nothing")
	}
	// One token refresh, one listing, a customer and a conversion_action
	// query per account.
	if calls.N() != 2+2*len(want) {
		t.Errorf("%d source calls, want %d", calls.N(), 2+2*len(want))
	}
	h2 := newHarness(t, googleadstest.Config{}, func(o *Options) { o.CustomerIDs = []string{"6172048851", "309-772-1946"} })
	if got := h2.accounts(t); len(got) != 2 {
		t.Errorf("CustomerIDs: got %v", got)
	}
	if reqs := h2.fake.Requests(); len(reqs) != 4 {
		t.Errorf("CustomerIDs: %d requests, want the 2 customer and 2 conversion_action queries only", len(reqs))
	}
}

// TestConversionActionsListingFails: an account whose conversion_action query
// is refused is still listed, with no conversion actions and a warning; the
// others keep theirs.
func TestConversionActionsListingFails(t *testing.T) {
	const victim = "617-204-8851"
	h := newHarness(t, googleadstest.Config{})
	h.fake.SetScenario(googleadstest.Scenario{Failure: googleadstest.PermissionDenied, Customers: []string{victim}, Resource: "conversion_action"})
	accts := h.accounts(t)
	if len(accts) != len(h.fake.Accounts()) {
		t.Fatalf("%d accounts, want %d", len(accts), len(h.fake.Accounts()))
	}
	for _, a := range accts {
		if (a.AccountID == victim) != (a.ConversionActions == "") {
			t.Errorf("%s: conversion actions %q", a.AccountID, a.ConversionActions)
		}
	}
	if !strings.Contains(h.logs.String(), "conversion actions not listed") || !strings.Contains(h.logs.String(), victim) {
		t.Errorf("no warning naming %s: %s", victim, h.logs.String())
	}
	checkNoSecrets(t, h, nil)
}

// checkNoSecrets: no secret or access token in the logs (at debug level) or
// the error.
func checkNoSecrets(t *testing.T, h *harness, err error) {
	t.Helper()
	texts := []string{h.logs.String(), fmt.Sprint(h.conn), fmt.Sprintf("%#v", h.conn), fmt.Sprintf("%+v", h.conn)}
	if err != nil {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err))
		if b, jerr := json.Marshal(err); jerr == nil {
			texts = append(texts, string(b))
		}
	}
	for _, s := range texts {
		for _, secret := range []string{googleadstest.ClientSecret, googleadstest.RefreshToken, googleadstest.AccessTokenPrefix, "DO-NOT-LEAK"} {
			if strings.Contains(s, secret) {
				t.Errorf("a secret leaked: %q in %.300s", secret, s)
			}
		}
	}
}

func TestOptionsDoNotPrintSecrets(t *testing.T) {
	o := Options{ClientID: "id", ClientSecret: "s3cret-DO-NOT-LEAK", RefreshToken: "rt-DO-NOT-LEAK", DeveloperToken: "dt-DO-NOT-LEAK"}
	for _, s := range []string{fmt.Sprint(o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), o.LogValue().String()} {
		if strings.Contains(s, "DO-NOT-LEAK") {
			t.Errorf("options print a secret: %s", s)
		}
	}
	if _, err := New(Options{ClientID: "id"}); err == nil || !strings.Contains(err.Error(), "client_secret, refresh_token") {
		t.Errorf("missing credentials: %v", err)
	}
	if _, err := New(Options{TokenSource: nil, ClientID: "a", ClientSecret: "b", RefreshToken: "c", APIVersion: "25"}); err == nil {
		t.Error("a bad api_version was accepted")
	}
	if _, err := New(Options{ClientID: "a", ClientSecret: "b", RefreshToken: "c", LoginCustomerID: "12-34"}); err == nil {
		t.Error("a bad login_customer_id was accepted")
	}
}

// TestPushDown: which filters reach WHERE, and how.
func TestPushDown(t *testing.T) {
	for _, tc := range []struct {
		f    query.Filter
		want []string
	}{
		{query.Filter{Field: "campaign_name", Operator: query.Contains, Values: []any{"50%_off"}}, []string{"campaign.name LIKE '%50[%][_]off%'"}},
		{query.Filter{Field: "campaign_name", Operator: query.Equals, Values: []any{"Kite"}}, []string{"campaign.name LIKE '__te'"}},
		{query.Filter{Field: "campaign_name", Operator: query.StartsWith, Values: []any{"[x]"}}, []string{"campaign.name LIKE '[[]x[]]%'"}},
		{query.Filter{Field: "campaign_name", Operator: query.NotEquals, Values: []any{"x"}}, nil},
		{query.Filter{Field: "campaign_name", Operator: query.In, Values: []any{"a", "b"}}, nil},
		{query.Filter{Field: "campaign_name", Operator: query.In, Values: []any{"a"}}, []string{"campaign.name LIKE 'a'"}},
		{query.Filter{Field: "campaign_name", Operator: query.Contains, Values: []any{"café"}}, nil},
		{query.Filter{Field: "campaign_name", Operator: query.Contains, Values: []any{`a"b`}}, nil},
		{query.Filter{Field: "campaign_name", Operator: query.Contains, Values: []any{""}}, nil},
		{query.Filter{Field: "ad_id", Operator: query.NotIn, Values: []any{"1", "2"}}, []string{"ad_group_ad.ad.id NOT IN (1, 2)"}},
		{query.Filter{Field: "campaign_id", Operator: query.Equals, Values: []any{"1e3"}}, nil},
		{query.Filter{Field: "campaign_status", Operator: query.Equals, Values: []any{"Active"}}, []string{"campaign.status = 'ENABLED'"}},
		{query.Filter{Field: "campaign_status", Operator: query.Equals, Values: []any{"deleted"}}, nil},
		{query.Filter{Field: "device", Operator: query.NotIn, Values: []any{"mobile", "desktop"}}, []string{"segments.device NOT IN ('MOBILE', 'DESKTOP')"}},
		{query.Filter{Field: "publisher_platform", Operator: query.Equals, Values: []any{"display"}}, []string{"segments.ad_network_type = 'CONTENT'"}},
		{query.Filter{Field: "device", Operator: query.Contains, Values: []any{"mob"}}, nil},
		{query.Filter{Field: "country", Operator: query.Equals, Values: []any{"US"}}, nil},
		{query.Filter{Field: "account_name", Operator: query.Equals, Values: []any{"x"}}, nil},
	} {
		got := pushDown(tc.f)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s %s %v: got %q, want %q", tc.f.Field, tc.f.Operator, tc.f.Values, got, tc.want)
		}
	}
}

// TestTokenSource: a caller's oauth2.TokenSource is used as is; a refused
// token is not refreshed behind its back (it cannot be), so the error says to
// re-authorize.
func TestTokenSource(t *testing.T) {
	fake := googleadstest.Start(t, googleadstest.Config{})
	conf := &oauth2.Config{ClientID: googleadstest.ClientID, ClientSecret: googleadstest.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: fake.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	ts := conf.TokenSource(context.Background(), &oauth2.Token{RefreshToken: googleadstest.RefreshToken})
	conn, err := New(Options{BaseURL: fake.URL, TokenSource: ts, RequestsPerSecond: -1})
	if err != nil {
		t.Fatal(err)
	}
	accts, err := conn.Accounts(context.Background())
	if err != nil || len(accts) != len(fake.Accounts()) {
		t.Fatalf("accounts: %v, %v", accts, err)
	}
	fake.SetScenario(googleadstest.Scenario{Failure: googleadstest.ExpiredToken, Times: 1})
	q := normalize(t, accts, scenarioQuery)
	_, err = live.New(nil, conn).Query(context.Background(), q)
	var ae *source.AccountsError
	if !errors.As(err, &ae) || ae.Kind() != source.PermissionDenied || !strings.Contains(err.Error(), "re-authorize") {
		t.Fatalf("want permission_denied saying to re-authorize, got %v", err)
	}
}

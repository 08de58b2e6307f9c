package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// The two-tenant fixture: acme sees two Meta accounts, globex three Google
// accounts; each token is one tenant's.
var tenants = map[string]*auth.Principal{
	"token-acme":   {ID: "key:acme-bot", Tenant: "acme", Accounts: []string{"act_1015823746512093", "act_2284619037465520"}},
	"token-globex": {ID: "key:globex-bot", Tenant: "globex", Accounts: []string{"617-204-8851", "725-118-6403", "482-915-3307"}, Budget: 5000},
}

func tenantVerifier(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	p, ok := tenants[token]
	if !ok {
		return nil, sdkauth.ErrInvalidToken
	}
	ti := p.TokenInfo()
	ti.Expiration = time.Now().Add(time.Hour)
	return ti, nil
}

// startTenantServer serves cfg over HTTP behind bearer tokens of the fixture.
func startTenantServer(t *testing.T, cfg Config) string {
	t.Helper()
	return startHTTP(t, cfg, HTTPOptions{Auth: func(h http.Handler) http.Handler {
		return sdkauth.RequireBearerToken(tenantVerifier, nil)(h)
	}})
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func connectAs(t *testing.T, url, token, client string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "test"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// leaks are the strings of the other tenant that must never reach acme.
func leaks(t *testing.T, other *auth.Principal) []string {
	all, err := warehouse(t).Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range all {
		if other.Allows(a) {
			out = append(out, a.AccountID, strings.ReplaceAll(a.AccountID, "-", ""), a.AccountName)
		}
	}
	return out
}

// TestTenantIsolation: every tool, resource, prompt and error path of one
// tenant's session shows only its accounts; another tenant's account reads
// exactly like one that does not exist.
func TestTenantIsolation(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxAccounts = 1 // so that too_many_accounts lists accounts
	url := startTenantServer(t, cfg)
	acme := connectAs(t, url, "token-acme", "claude-ai")
	forbidden := leaks(t, tenants["token-globex"])
	var seen []string
	see := func(what string, res *mcp.CallToolResult) map[string]any {
		t.Helper()
		text := strings.Join(texts(t, res), "\n")
		seen = append(seen, what+": "+text)
		var m map[string]any
		json.Unmarshal([]byte(texts(t, res)[0]), &m)
		return m
	}

	accounts := texts(t, call(t, acme, "list_accounts", `{}`))
	if strings.Count(accounts[1], "\n") != 3 || !strings.Contains(accounts[1], "Lumen Outdoor US") {
		t.Errorf("acme's list_accounts:\n%s", accounts[1])
	}
	seen = append(seen, "list_accounts: "+strings.Join(accounts, "\n"))

	// Another tenant's account and an account that does not exist: the same answer.
	other := see("other tenant's account", call(t, acme, "query", `{"metrics":["spend"],"account_ids":["617-204-8851"]}`))
	none := see("no such account", call(t, acme, "query", `{"metrics":["spend"],"account_ids":["617-204-8859"]}`))
	strip := func(m map[string]any) string {
		b, _ := json.Marshal(m["problems"])
		return strings.NewReplacer("617-204-8851", "X", "617-204-8859", "X", "6172048851", "X", "6172048859", "X").Replace(string(b))
	}
	if other["type"] != "invalid_query" || strip(other) != strip(none) {
		t.Errorf("another tenant's account is told apart from a missing one:\n%v\n%v", other, none)
	}

	see("too_many_accounts", call(t, acme, "query", `{"metrics":["spend"]}`))
	see("fits", call(t, acme, "query", `{"metrics":["spend","clicks"],"dimensions":["account_name","campaign_name"],"account_ids":["act_1015823746512093"],"date_preset":"last_30d"}`))
	see("data_too_large", call(t, acme, "query", `{"metrics":["spend","clicks"],"dimensions":["campaign_name","ad_name","country"],"account_ids":["act_1015823746512093"],"time_granularity":"daily","date_preset":"last_90d","token_budget":1000}`))
	see("list_fields", call(t, acme, "list_fields", `{}`))

	for _, uri := range []string{"adsmcp://accounts", "adsmcp://guide"} {
		r, err := acme.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, uri+": "+r.Contents[0].Text)
	}
	for _, name := range []string{"spend_summary", "campaign_performance", "wasted_spend"} {
		r, err := acme.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, name+": "+r.Messages[0].Content.(*mcp.TextContent).Text)
	}
	for _, text := range seen {
		for _, f := range forbidden {
			// The caller's own words come back (the value it sent): not a leak.
			echo := strings.HasPrefix(text, "other tenant's account") && (f == "617-204-8851" || f == "6172048851")
			if strings.Contains(text, f) && !echo {
				t.Errorf("globex's %q reached acme in %.200s", f, text)
			}
		}
	}
	if !strings.Contains(strings.Join(seen, "\n"), "act_1015823746512093") {
		t.Error("acme's own account never showed: the test checks nothing")
	}
}

// TestTenantBudgetAndTimeout: a principal's budget applies, and a timeout's
// narrower queries name only its accounts.
func TestTenantBudgetAndTimeout(t *testing.T) {
	src := newBlockingSource(t, false, false)
	slowURL := startTenantServer(t, Config{Source: src, Now: now, Deadline: 300 * time.Millisecond})
	globex := connectAs(t, startTenantServer(t, testConfig(t)), "token-globex", "ChatGPT")
	m := metaOf(t, texts(t, call(t, globex, "query", `{"metrics":["spend"],"dimensions":["account_name"],"date_preset":"last_7d"}`))[0])
	if m["token_budget"] != 5000.0 || m["budget_source"] != "principal:key:globex-bot" {
		t.Errorf("globex's budget: %v from %v", m["token_budget"], m["budget_source"])
	}
	// Warm the slow server's account list, then time out.
	acme := connectAs(t, slowURL, "token-acme", "claude-ai")
	call(t, acme, "list_accounts", `{}`)
	res := call(t, acme, "query", `{"metrics":["spend"],"dimensions":["campaign_name"],"date_preset":"last_90d","time_granularity":"daily"}`)
	body := errorOf(t, res, "timeout")
	text, _ := json.Marshal(body)
	if !strings.Contains(string(text), "act_") {
		t.Errorf("timeout without acme's narrower queries: %s", text)
	}
	for _, f := range leaks(t, tenants["token-globex"]) {
		if strings.Contains(string(text), f) {
			t.Errorf("globex's %q in acme's timeout: %s", f, text)
		}
	}
}

// TestUnauthenticated: without a valid token nothing is served.
func TestUnauthenticated(t *testing.T) {
	url := startTenantServer(t, testConfig(t))
	for _, token := range []string{"", "token-nobody"} {
		_, err := mcp.NewClient(&mcp.Implementation{Name: "x"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
		if err == nil {
			t.Errorf("token %q connected", token)
		}
	}
	resp, body := post(t, url, map[string]string{"Authorization": "Bearer token-nobody"}, initialize)
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "token-nobody") {
		t.Errorf("bad token: %d %q", resp.StatusCode, body)
	}
}

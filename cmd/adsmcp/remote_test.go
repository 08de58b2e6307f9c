package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRemoteServer: the binary with API keys and tenants from the config —
// no key, 401 with a challenge; a key, its tenant's accounts only; metrics and
// readiness served; and no data exposed on a public address without auth.
func TestRemoteServer(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	key, hash, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, `
database: `+testDB(t)+`
tenants:
  lumen: {accounts: [act_1015823746512093, act_2284619037465520]}
auth:
  api_keys:
    - {id: lumen-bot, sha256: `+hash+`, tenant: lumen, budget: 12000}
limits: {requests_per_minute: 600, max_concurrent: 2}
`)
	url := serveHTTPProcess(t, binary(t), "serve", "--config", cfg, "--http", "127.0.0.1:0", "--today", "2026-03-15")
	base := strings.TrimSuffix(url, "/mcp")

	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no key: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-ai"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withKey{key}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_accounts", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_accounts: %v %v", err, res)
	}
	list := res.Content[1].(*mcp.TextContent).Text
	if strings.Count(list, "\n") != 3 || !strings.Contains(list, "Lumen Outdoor US") || strings.Contains(list, "google_ads") {
		t.Errorf("lumen's accounts:\n%s", list)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query",
		Arguments: map[string]any{"metrics": []string{"spend"}, "dimensions": []string{"account_name"}, "date_preset": "last_7d"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"budget_source":"principal:key:lumen-bot"`) {
		t.Errorf("query: %v %v", err, res)
	}

	code, metrics := get(t, base+"/metrics")
	for _, want := range []string{`adsmcp_tool_calls_total{client="claude-ai",outcome="ok",tool="list_accounts"} 1`, "adsmcp_tool_call_duration_seconds_bucket", "go_goroutines", "adsmcp_sessions_active 1"} {
		if code != http.StatusOK || !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s (%d)", want, code)
		}
	}
	if strings.Contains(metrics, "lumen") {
		t.Error("a principal or tenant is a metric label")
	}
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || !strings.Contains(body, "ready") {
		t.Errorf("/readyz: %d %s", code, body)
	}

	// A public address without auth is refused before anything is served.
	_, _, err = runCLI("serve", "--db", testDB(t), "--http", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "no auth: is configured") || !strings.Contains(err.Error(), "--allow-unauthenticated") {
		t.Errorf("0.0.0.0 without auth: %v", err)
	}
}

// TestTwoStatelessReplicas: two `serve --stateless` processes on one warehouse,
// called alternately with no session (as a round-robin balancer would), answer
// every call alike, and a client's User-Agent picks its budget.
func TestTwoStatelessReplicas(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	var urls []string
	for range 2 {
		urls = append(urls, serveHTTPProcess(t, binary(t), "serve", "--db", testDB(t), "--http", "127.0.0.1:0", "--stateless", "--today", "2026-03-15"))
	}
	var answers []string
	for i := range 4 {
		req, _ := http.NewRequest(http.MethodPost, urls[i%2], strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{"metrics":["spend","clicks"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_7d"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("User-Agent", "claude-code/2.1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(body), `\"budget_source\":\"client:claude-code\"`) {
			t.Fatalf("replica %d: %d %s", i%2, resp.StatusCode, body)
		}
		_, csv, _ := strings.Cut(string(body), `"text":"account_name`)
		answers = append(answers, csv)
	}
	for i := 1; i < len(answers); i++ {
		if answers[i] != answers[0] || answers[0] == "" {
			t.Errorf("replica answers differ:\n%s\n%s", answers[0], answers[i])
		}
	}
}

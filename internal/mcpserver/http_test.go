package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// startHTTP serves cfg over streamable HTTP on a loopback port until the test
// ends, and returns the /mcp URL.
func startHTTP(t *testing.T, cfg Config, opts HTTPOptions) string {
	t.Helper()
	h, err := NewHTTPServer(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + MCPPath
}

// connectHTTP opens a session over streamable HTTP as client.
func connectHTTP(t *testing.T, url, client string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "test"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPBudgetPerClient: over stateful HTTP the session's client name chooses
// the budget, exactly as over stdio.
func TestHTTPBudgetPerClient(t *testing.T) {
	url := startHTTP(t, testConfig(t), HTTPOptions{})
	for client, want := range map[string]float64{"claude-code": 25000, "claude-ai": 30000, "ChatGPT": 80000, "some-new-editor": 30000} {
		cs := connectHTTP(t, url, client)
		res := call(t, cs, "query", small)
		b := texts(t, res)
		if res.IsError || len(b) != 2 {
			t.Fatalf("%s: isError=%v:\n%v", client, res.IsError, b)
		}
		if m := metaOf(t, b[0]); m["token_budget"] != want {
			t.Errorf("%s: token_budget %v from %v, want %v", client, m["token_budget"], m["budget_source"], want)
		}
	}
}

func post(t *testing.T, url string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// TestHTTPRefusesAndGoesOn: oversized bodies, foreign Host headers (DNS
// rebinding) and cross-origin browser requests are refused with a clear
// status, trusted origins pass, and the server keeps serving.
func TestHTTPRefusesAndGoesOn(t *testing.T) {
	url := startHTTP(t, testConfig(t), HTTPOptions{MaxRequestBytes: 4096, AllowedOrigins: []string{"https://app.example.com"}})
	for _, c := range []struct {
		name string
		hdr  map[string]string
		body string
		code int
		say  string
	}{
		{"oversized body", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, http.StatusRequestEntityTooLarge, "exceeds 4096 bytes"},
		{"DNS rebinding", map[string]string{"Host": "evil.example:80"}, initialize, http.StatusForbidden, "Host"},
		{"untrusted origin", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, initialize, http.StatusForbidden, "allowed_origins"},
		{"trusted origin", map[string]string{"Origin": "https://app.example.com", "Sec-Fetch-Site": "cross-site"}, initialize, http.StatusOK, `"serverInfo"`},
		{"same origin, after the refusals", nil, initialize, http.StatusOK, `"serverInfo"`},
	} {
		resp, body := post(t, url, c.hdr, c.body)
		if resp.StatusCode != c.code || !strings.Contains(body, c.say) {
			t.Errorf("%s: %d %q, want %d containing %q", c.name, resp.StatusCode, body, c.code, c.say)
		}
	}
}

func TestHealthz(t *testing.T) {
	cfg := testConfig(t)
	cfg.Version = "1.2.3"
	url := startHTTP(t, cfg, HTTPOptions{})
	resp, err := http.Get(strings.TrimSuffix(url, MCPPath) + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body["status"] != "ok" || body["version"] != "1.2.3" {
		t.Errorf("healthz: %d %v %v", resp.StatusCode, body, err)
	}
}

// gateSource answers queries only once released, and says when one started.
type gateSource struct {
	*blockingSource
	started chan struct{}
	open    chan struct{}
}

func (g *gateSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	close(g.started)
	<-g.open
	return g.blockingSource.Source.Query(ctx, q)
}

// TestHTTPClientCancelStopsTheWork: a client that gives up on a call over HTTP
// cancels the source's work.
func TestHTTPClientCancelStopsTheWork(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source = src
	cs := connectHTTP(t, startHTTP(t, cfg, HTTPOptions{}), "claude-code")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(slow)}); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	select {
	case <-src.cancelled:
	case <-time.After(3 * time.Second):
		t.Error("the source's context was not cancelled after the client gave up")
	}
}

// TestHTTPBadInputGoesOn: over HTTP, every kind of bad input gets a precise
// answer — a 400 naming the problem for what is not a JSON-RPC request the
// server handles, a JSON-RPC error for an unknown tool, an isError answer naming
// the fields for wrong argument types — and the session serves the next request.
func TestHTTPBadInputGoesOn(t *testing.T) {
	url := startHTTP(t, testConfig(t), HTTPOptions{})
	resp, _ := post(t, url, nil, initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session id")
	}
	session := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct {
		name, body string
		code       int
		say        []string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":2,"method":`, 400, []string{"malformed payload", "unexpected EOF"}},
		{"not a message", `[1,2]`, 400, []string{"malformed payload"}},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"tools/explode"}`, 400, []string{`"tools/explode" unsupported`}},
		{"unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, 200, []string{`"code":-32602`, `unknown tool \"nope\"`}},
		{"wrong argument types", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query","arguments":{"metrics":5,"limit":"ten"}}}`, 200,
			[]string{`"isError":true`, `invalid_query`, `\"field\":\"metrics\"`, `expected an array of strings, got a JSON number`, `\"field\":\"limit\"`}},
		{"unknown session", `{"jsonrpc":"2.0","id":6,"method":"ping"}`, 404, []string{"session not found"}},
		{"the next request", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, 200, []string{`"id":7,"result":{}`}},
	} {
		hdr := session
		if c.name == "unknown session" {
			hdr = map[string]string{"Mcp-Session-Id": "nope"}
		}
		resp, body := post(t, url, hdr, c.body)
		if resp.StatusCode != c.code {
			t.Errorf("%s: status %d, want %d: %s", c.name, resp.StatusCode, c.code, body)
		}
		for _, s := range c.say {
			if !strings.Contains(body, s) {
				t.Errorf("%s: answer does not say %s:\n%s", c.name, s, body)
			}
		}
	}
}

// TestHTTPDisconnectStopsTheWork: a client whose connection drops mid-call
// (no cancellation message: the TCP connection just closes) cancels the work.
func TestHTTPDisconnectStopsTheWork(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source = src
	url := startHTTP(t, cfg, HTTPOptions{})
	resp, _ := post(t, url, nil, initialize)
	session := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-06-18"}
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":`+slow+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range session {
		req.Header.Set(k, v)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
			io.Copy(io.Discard, resp.Body) // blocks until the connection drops
			resp.Body.Close()
		}
	}()
	select {
	case <-src.entered: // the call is running
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not reach the source")
	}
	drop()
	<-done
	select {
	case <-src.cancelled:
	case <-time.After(3 * time.Second):
		t.Error("the source's context was not cancelled after the connection dropped")
	}
}

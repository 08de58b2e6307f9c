package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// TestStatelessServesWithoutSessions: in stateless mode every request stands
// alone (no Mcp-Session-Id), a client of an older protocol still gets its
// budget from its User-Agent, and two replicas answer the same calls alike.
func TestStatelessServesWithoutSessions(t *testing.T) {
	replicas := []string{
		startHTTP(t, testConfig(t), HTTPOptions{Stateless: true}),
		startHTTP(t, testConfig(t), HTTPOptions{Stateless: true}),
	}
	call := func(url, ua string) (string, string) {
		resp, body := post(t, url, map[string]string{"User-Agent": ua, "Mcp-Protocol-Version": "2025-06-18"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":`+small+`}}`)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("status %d, session %q: %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
		}
		_, data, _ := strings.Cut(body, "data: ")
		var msg struct {
			Result struct {
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &msg); err != nil || len(msg.Result.Content) != 2 {
			t.Fatalf("not a two-block answer: %v\n%s", err, body)
		}
		return body, msg.Result.Content[1].Text
	}
	a, csvA := call(replicas[0], "claude-code/1.0.0 (cli)")
	b, csvB := call(replicas[1], "claude-code/1.0.0 (cli)")
	if !strings.Contains(a, `\"budget_source\":\"client:claude-code\"`) || !strings.Contains(b, `\"token_budget\":25000`) {
		t.Errorf("the User-Agent did not choose the budget:\n%.400s", a)
	}
	if c, _ := call(replicas[1], "curl/8.0"); !strings.Contains(c, `\"budget_source\":\"default\"`) {
		t.Errorf("an unknown User-Agent: %.400s", c)
	}
	if csvA == "" || csvA != csvB {
		t.Errorf("replicas answer differently")
	}
}

// TestMaxSessions: a new session beyond the cap gets 503; existing sessions go on.
func TestMaxSessions(t *testing.T) {
	url := startHTTP(t, testConfig(t), HTTPOptions{MaxSessions: 1})
	first := connectHTTP(t, url, "claude-ai")
	resp, body := post(t, url, nil, initialize)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "maximum of 1 open sessions") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second session: %d %s", resp.StatusCode, body)
	}
	if res := call(t, first, "list_fields", `{}`); res.IsError {
		t.Error("the open session stopped working")
	}
}

// server/discover, which the go-sdk client sends before initialize, opens no
// session: it is answered at the session cap, and it takes no place under it,
// so the initialize that follows it is admitted (it was refused when the
// discover's place was still booked: 13 of 80 connects in a loop were
// refused, and TestMaxSessions failed now and then).
func TestDiscoverTakesNoSessionPlace(t *testing.T) {
	url := startHTTP(t, testConfig(t), HTTPOptions{MaxSessions: 1})
	first := connectHTTP(t, url, "claude-ai")
	const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`
	if resp, body := post(t, url, nil, discover); resp.StatusCode == http.StatusServiceUnavailable || strings.Contains(body, "maximum of") {
		t.Errorf("server/discover at the session cap: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, url, nil, initialize); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "maximum of 1 open sessions") {
		t.Errorf("initialize at the session cap: %d %s", resp.StatusCode, body)
	}
	if res := call(t, first, "list_fields", `{}`); res.IsError {
		t.Error("the open session stopped working")
	}
	for range 20 { // each connect sends server/discover, then initialize
		connectHTTP(t, startHTTP(t, testConfig(t), HTTPOptions{MaxSessions: 1}), "claude-ai")
	}
}

// fakeLimiter refuses every call after the first n.
type fakeLimiter struct {
	n, active int
}

func (f *fakeLimiter) Acquire(*auth.Principal) (func(), time.Duration, bool) {
	if f.n == 0 {
		return nil, 2500 * time.Millisecond, false
	}
	f.n--
	f.active++
	return func() { f.active-- }, 0, true
}

// TestRateLimitedAnswer: a refused call answers rate_limited with when to
// retry, runs nothing, and frees nothing it did not take; stdio (no principal)
// is never limited.
func TestRateLimitedAnswer(t *testing.T) {
	lim := &fakeLimiter{n: 1}
	cfg := testConfig(t)
	cfg.Limiter = lim
	cs := connectAs(t, startTenantServer(t, cfg), "token-acme", "claude-ai")
	if res := call(t, cs, "list_fields", `{}`); res.IsError {
		t.Fatal("the first call was refused")
	}
	body := errorOf(t, call(t, cs, "list_fields", `{}`), "rate_limited")
	if body["retry_after_seconds"] != 3.0 || !strings.Contains(body["detail"].(string), "Wait 3 s") || lim.active != 0 {
		t.Errorf("rate_limited: %v (active %d)", body, lim.active)
	}
	local := connect(t, cfg, "claude-code")
	if res := call(t, local, "list_fields", `{}`); res.IsError {
		t.Error("stdio was limited")
	}
}

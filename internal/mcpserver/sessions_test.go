package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/limits"
)

var (
	acmeKey   = map[string]string{"Authorization": "Bearer token-acme"}
	globexKey = map[string]string{"Authorization": "Bearer token-globex"}
)

// openSession posts initialize with hdr and returns the status and session id.
func openSession(t *testing.T, url string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	resp, _ := post(t, url, hdr, initialize)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp.Header
}

// TestSessionsPerPrincipal: one key opening sessions up to
// its cap gets 429 with Retry-After beyond it, while another tenant still
// opens sessions under the server's cap; a session closed (DELETE) frees a
// slot of its key.
func TestSessionsPerPrincipal(t *testing.T) {
	base, _ := serveReal(t, testConfig(t), withTenants(HTTPOptions{MaxSessions: 4, MaxSessionsPerPrincipal: 3}))
	url := base + MCPPath
	var acme []string
	for i := range 3 {
		code, sid, _ := openSession(t, url, acmeKey)
		if code != http.StatusOK {
			t.Fatalf("acme's session %d: %d", i+1, code)
		}
		acme = append(acme, sid)
	}
	for range 5 { // a flood from the same key changes nothing
		if code, _, hdr := openSession(t, url, acmeKey); code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
			t.Fatalf("acme's session beyond its cap: %d (Retry-After %q), want 429 with Retry-After", code, hdr.Get("Retry-After"))
		}
	}
	if code, _, _ := openSession(t, url, globexKey); code != http.StatusOK {
		t.Fatalf("globex's first session while acme is at its cap: %d", code)
	}
	if code, _, _ := openSession(t, url, globexKey); code != http.StatusServiceUnavailable {
		t.Fatalf("a session beyond the server's cap: %d, want 503", code)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Authorization", acmeKey["Authorization"])
	req.Header.Set("Mcp-Session-Id", acme[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, _, _ := openSession(t, url, acmeKey); code != http.StatusOK {
		t.Fatalf("acme after closing one of its sessions: %d", code)
	}
}

// fakeClock is a settable time source.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestSessionsReapedUnderPressure: at its cap, a key's new
// session closes its longest-idle session once that has been idle for
// IdleUnderPressure, long before SessionIdleTimeout; a session in use is

// TestSessionsPerPrincipalDefaultUnderTheServerCap: with only the server's
// cap set (http.max_sessions: 20, no per-principal cap), one key cannot hold
// every session: it is refused with 429 while others can still open theirs.
func TestSessionsPerPrincipalDefaultUnderTheServerCap(t *testing.T) {
	const serverCap = 20
	base, _ := serveReal(t, testConfig(t), withTenants(HTTPOptions{MaxSessions: serverCap}))
	url := base + MCPPath
	opened := 0
	for ; opened < serverCap; opened++ {
		code, _, _ := openSession(t, url, acmeKey)
		if code == http.StatusTooManyRequests {
			break
		}
		if code != http.StatusOK {
			t.Fatalf("acme's session %d: %d", opened+1, code)
		}
	}
	if opened == serverCap {
		t.Fatalf("one key opened all %d sessions of the server", serverCap)
	}
	if opened != DefaultMaxSessionsPerPrincipalFor(serverCap) {
		t.Errorf("acme opened %d sessions, want the documented default %d", opened, DefaultMaxSessionsPerPrincipalFor(serverCap))
	}
	if code, _, _ := openSession(t, url, globexKey); code != http.StatusOK {
		t.Errorf("globex's first session while acme is at its cap: %d", code)
	}
}

func TestDefaultMaxSessionsPerPrincipalFor(t *testing.T) {
	for serverCap, want := range map[int]int{0: 20, 1: 1, 2: 1, 7: 1, 8: 2, 20: 5, 80: 20, 1000: 20} {
		if got := DefaultMaxSessionsPerPrincipalFor(serverCap); got != want {
			t.Errorf("DefaultMaxSessionsPerPrincipalFor(%d) = %d, want %d", serverCap, got, want)
		}
	}
}

// never closed.
func TestSessionsReapedUnderPressure(t *testing.T) {
	base, h := serveReal(t, testConfig(t), withTenants(HTTPOptions{MaxSessionsPerPrincipal: 2, IdleUnderPressure: time.Minute}))
	clock := &fakeClock{t: time.Now()}
	h.book.now = clock.Now
	url := base + MCPPath
	_, first, _ := openSession(t, url, acmeKey)
	clock.Advance(10 * time.Second)
	_, second, _ := openSession(t, url, acmeKey)
	if code, _, _ := openSession(t, url, acmeKey); code != http.StatusTooManyRequests {
		t.Fatalf("a third session with none idle long: %d, want 429", code)
	}
	clock.Advance(time.Minute)
	code, _, _ := openSession(t, url, acmeKey)
	if code != http.StatusOK {
		t.Fatalf("a third session once the others idled past IdleUnderPressure: %d, want 200", code)
	}
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	sess := func(sid string) map[string]string {
		return map[string]string{"Authorization": acmeKey["Authorization"], "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
	}
	if resp, _ := post(t, url, sess(first), ping); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the longest-idle session after it was reaped: %d, want 404", resp.StatusCode)
	}
	if resp, body := post(t, url, sess(second), ping); resp.StatusCode != http.StatusOK {
		t.Errorf("the other session: %d %s, want it kept", resp.StatusCode, body)
	}
}

// TestInitializeCountedByRate: opening sessions spends the
// key's request rate, so a flood of initialize is refused with 429 long
// before any session cap.
func TestInitializeCountedByRate(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limiter = limits.New(limits.Options{RequestsPerMinute: 12}) // burst 2
	base, _ := serveReal(t, cfg, withTenants(HTTPOptions{}))
	var codes []int
	for range 3 {
		code, _, _ := openSession(t, base+MCPPath, acmeKey)
		codes = append(codes, code)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != http.StatusTooManyRequests {
		t.Errorf("three initialize with a burst of 2: %v, want 200 200 429", codes)
	}
	if code, _, _ := openSession(t, base+MCPPath, globexKey); code != http.StatusOK {
		t.Errorf("another key meanwhile: %d", code)
	}
}

// refuseAll admits initialize (Allow) but no call.
type refuseAll struct{}

func (refuseAll) Acquire(*auth.Principal) (func(), time.Duration, bool) {
	return nil, 3 * time.Second, false
}
func (refuseAll) Allow(*auth.Principal) (time.Duration, bool) { return 0, true }

// TestLimitsOnEveryMethod: resources/read and prompts/get
// are limited like tools/call: refused with a rate_limited error that says
// when to retry.
func TestLimitsOnEveryMethod(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limiter = refuseAll{}
	base, _ := serveReal(t, cfg, withTenants(HTTPOptions{}))
	cs := connectAs(t, base+MCPPath, "token-acme", "claude-code")
	ctx := context.Background()
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "adsmcp://accounts"})
	if err == nil || !strings.Contains(err.Error(), "rate_limited") || !strings.Contains(err.Error(), "Retry in 3 s") {
		t.Errorf("resources/read: %v, want rate_limited with a retry", err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "spend_summary", Arguments: map[string]string{"period": "last_7d"}})
	if err == nil || !strings.Contains(err.Error(), "rate_limited") {
		t.Errorf("prompts/get: %v, want rate_limited", err)
	}
	res := call(t, cs, "list_accounts", `{}`)
	errorOf(t, res, "rate_limited")
}

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// keepAlive opens a raw connection, makes one GET /healthz on it and leaves it
// open and idle (a keep-alive client that went quiet).
func keepAlive(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(base, "http://"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("keep-alive /healthz: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c
}

// closedByServer reports whether the server closed c (a read ends at once).
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// TestHTTPIdleConnectionsDoNotBlock: 3× the connection
// cap of idle keep-alive connections, and still /healthz and a new session
// answer; the server never holds more than the cap, closing the
// longest-idle connections to let new ones in.
func TestHTTPIdleConnectionsDoNotBlock(t *testing.T) {
	const capConns = 8
	base, h := serveReal(t, testConfig(t), HTTPOptions{MaxConnections: capConns})
	conns := make([]net.Conn, 3*capConns)
	for i := range conns {
		conns[i] = keepAlive(t, base)
	}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := fresh.Get(base + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz past %d idle connections: %v %v", len(conns), resp, err)
	}
	resp.Body.Close()
	cs := connectHTTP(t, base+MCPPath, "claude-code")
	if res := call(t, cs, "list_accounts", `{}`); res.IsError {
		t.Fatalf("a new session past %d idle connections: %v", len(conns), texts(t, res))
	}
	var wg sync.WaitGroup
	closed := make([]bool, len(conns))
	for i, c := range conns {
		wg.Go(func() { closed[i] = closedByServer(c) })
	}
	wg.Wait()
	n := 0
	for _, c := range closed {
		if c {
			n++
		}
	}
	if n < len(conns)-capConns {
		t.Errorf("the server closed %d of %d idle connections; with a cap of %d it may keep at most %d", n, len(conns), capConns, capConns)
	}
	if p := h.conns.Peak(); p > capConns {
		t.Errorf("%d connections open at once, over the cap of %d", p, capConns)
	}
}

// TestHTTPSlowBodyIsCut: a POST that announces a body and
// never sends it is answered and closed within the read timeout, with auth on
// (the 401 must not wait for the body) and off.
func TestHTTPSlowBodyIsCut(t *testing.T) {
	const readTimeout = 500 * time.Millisecond
	for _, withAuth := range []bool{false, true} {
		t.Run(fmt.Sprintf("auth=%v", withAuth), func(t *testing.T) {
			opts := HTTPOptions{ReadTimeout: readTimeout}
			if withAuth {
				opts = withTenants(opts)
			}
			base, _ := serveReal(t, testConfig(t), opts)
			host := strings.TrimPrefix(base, "http://")
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10\r\n\r\n", host)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			io.Copy(io.Discard, c) // until the server closes the connection
			if d := time.Since(start); d > readTimeout+2*time.Second {
				t.Errorf("the connection was held %s; the read timeout is %s", d.Round(time.Millisecond), readTimeout)
			}
		})
	}
}

// TestHTTPStreamsOutliveTimeouts: read and write timeouts
// cut slow clients, not slow answers: a call that reports progress over SSE
// for 3× both timeouts gets its answer, and the session's GET stream still
// carries a server request (ping) afterwards.
func TestHTTPStreamsOutliveTimeouts(t *testing.T) {
	const timeout = 300 * time.Millisecond
	cfg := testConfig(t)
	cfg.Source = slowSource{newBlockingSource(t, false, false), 3 * timeout} // a legitimately slow call
	cfg.ProgressInterval = timeout / 3
	base, h := serveReal(t, cfg, HTTPOptions{ReadTimeout: timeout, WriteTimeout: timeout})
	var progress sync.WaitGroup
	progress.Add(1)
	var once sync.Once
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { once.Do(progress.Done) },
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + MCPPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	params := &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(small)}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("a call lasting 3× the timeouts: %v %v", err, res)
	}
	progress.Wait()
	for ss := range h.mcp.Sessions() {
		if err := ss.Ping(ctx, nil); err != nil {
			t.Errorf("ping over the session's stream after 3× the timeouts: %v", err)
		}
	}
}

// TestHTTPUnauthenticatedPerAddress: an address that keeps
// failing authentication gets 429 with Retry-After once its allowance is
// spent, every refusal closes its connection, and a valid token from the same
// address (clients behind one proxy) is still served.
func TestHTTPUnauthenticatedPerAddress(t *testing.T) {
	base, _ := serveReal(t, testConfig(t), withTenants(HTTPOptions{UnauthenticatedPerMinute: 12})) // burst 2
	url := base + MCPPath
	var codes []int
	for range 3 {
		resp, _ := post(t, url, map[string]string{"Authorization": "Bearer guessed"}, initialize)
		codes = append(codes, resp.StatusCode)
		if !resp.Close {
			t.Errorf("refusal %d (%d) left the connection open", len(codes), resp.StatusCode)
		}
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	if want := []int{401, 401, 429}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", codes, want)
	}
	resp, body := post(t, url, map[string]string{"Authorization": "Bearer token-acme"}, initialize)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a valid token from the same address: %d %s", resp.StatusCode, body)
	}
}

// TestHTTPUnauthenticatedBehindTrustedProxy: behind a trusted
// proxy each client's X-Forwarded-For address has its own allowance, so one
// key guesser does not spend everyone's; the same header from a peer that is
// not a trusted proxy is ignored (anyone can write it), so a guesser cannot
// dodge its allowance by inventing addresses.
func TestHTTPUnauthenticatedBehindTrustedProxy(t *testing.T) {
	guess := func(url, client string) int {
		resp, _ := post(t, url, map[string]string{"Authorization": "Bearer guessed", "X-Forwarded-For": client}, initialize)
		return resp.StatusCode
	}
	trusted, _, _ := limits.ParseProxies([]string{"127.0.0.1", "::1"})
	base, _ := serveReal(t, testConfig(t), withTenants(HTTPOptions{UnauthenticatedPerMinute: 12, TrustedProxies: trusted})) // burst 2
	url := base + MCPPath
	var codes []int
	for _, client := range []string{"203.0.113.7", "203.0.113.7", "203.0.113.7", "198.51.100.20"} {
		codes = append(codes, guess(url, client))
	}
	if want := []int{401, 401, 429, 401}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("behind a trusted proxy: statuses %v, want %v (the second client has its own allowance)", codes, want)
	}

	base, _ = serveReal(t, testConfig(t), withTenants(HTTPOptions{UnauthenticatedPerMinute: 12}))
	url = base + MCPPath
	codes = nil
	for _, client := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.3"} {
		codes = append(codes, guess(url, client))
	}
	if want := []int{401, 401, 429}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("no trusted proxy: statuses %v, want %v (invented addresses share the peer's allowance)", codes, want)
	}
}

// TestHTTPAuthenticatedRequestsDoNotSpendTheAllowance: requests that
// authenticate never count against their address's allowance for
// unauthenticated ones (docs/deployment.md). Behind a proxy every client
// shares one address, so with the default allowance (60 a minute, bursts of
// 10) a dozen authenticated requests must leave the next keyless request —
// the first step of OAuth discovery — its 401, not a 429.
func TestHTTPAuthenticatedRequestsDoNotSpendTheAllowance(t *testing.T) {
	base, _ := serveReal(t, testConfig(t), withTenants(HTTPOptions{}))
	url := base + MCPPath
	const authenticated = 12 // past the default burst of 10
	for i := range authenticated {
		if resp, body := post(t, url, map[string]string{"Authorization": "Bearer token-acme"}, initialize); resp.StatusCode != http.StatusOK {
			t.Fatalf("authenticated request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := post(t, url, nil, initialize)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a keyless request after %d authenticated ones from its address: %d %s, want 401 (the allowance is for failures only)", authenticated, resp.StatusCode, body)
	}
}

package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/query"
)

// serveReal serves cfg with Serve (the http.Server adsmcp runs, with its
// timeouts and connection cap) on a loopback port until the test ends, and
// returns the base URL (no path).
func serveReal(t *testing.T, cfg Config, opts HTTPOptions) (string, *HTTPServer) {
	t.Helper()
	h, err := NewHTTPServer(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	return "http://" + ln.Addr().String(), h
}

// withTenants is opts behind the fixture's bearer tokens.
func withTenants(opts HTTPOptions) HTTPOptions {
	opts.Auth = func(h http.Handler) http.Handler { return sdkauth.RequireBearerToken(tenantVerifier, nil)(h) }
	return opts
}

// startedSource blocks every query until its context ends, and signals when
// a query started and when its context was cancelled.
type startedSource struct {
	*blockingSource
	startOnce sync.Once
	started   chan struct{}
}

func newStartedSource(t *testing.T) *startedSource {
	return &startedSource{blockingSource: newBlockingSource(t, false, false), started: make(chan struct{})}
}

func (s *startedSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	s.startOnce.Do(func() { close(s.started) })
	return s.blockingSource.Query(ctx, q)
}

// signalLimiter is a limits.Limiter that signals every release.
type signalLimiter struct {
	*limits.Limiter
	released chan struct{}
}

func (l signalLimiter) Acquire(p *auth.Principal) (func(), time.Duration, bool) {
	release, retry, ok := l.Limiter.Acquire(p)
	if !ok {
		return release, retry, ok
	}
	var once sync.Once
	return func() {
		release()
		once.Do(func() { l.released <- struct{}{} })
	}, retry, ok
}

// within waits for ch at most d.
func within(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %s", what, d)
	}
}

// rawSession initializes a session over plain HTTP and returns its headers.
func rawSession(t *testing.T, url string, hdr map[string]string) map[string]string {
	t.Helper()
	resp, body := post(t, url, hdr, initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	session := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
	for k, v := range hdr {
		session[k] = v
	}
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return session
}

// TestHTTPDisconnectWithAuthCancelsTheCall: with
// authentication on, a client whose connection drops mid-call still cancels
// the work, and the principal's concurrency slot is free again at once.
func TestHTTPDisconnectWithAuthCancelsTheCall(t *testing.T) {
	src := newStartedSource(t)
	cfg := testConfig(t)
	cfg.Source = src
	cfg.Deadline = 10 * time.Second // bounds the test if the cancellation is lost
	lim := signalLimiter{limits.New(limits.Options{MaxConcurrent: 1}), make(chan struct{}, 4)}
	cfg.Limiter = lim
	base, _ := serveReal(t, cfg, withTenants(HTTPOptions{}))
	url := base + MCPPath
	session := rawSession(t, url, map[string]string{"Authorization": "Bearer token-acme"})

	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":`+acmeSlow+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range session {
		req.Header.Set(k, v)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
			io.Copy(io.Discard, resp.Body) // until the connection drops
			resp.Body.Close()
		}
	}()
	within(t, src.started, 5*time.Second, "the call reached the source")
	dropped := time.Now()
	drop()
	<-done
	within(t, src.cancelled, 3*time.Second, "the source's context cancelled after the connection dropped")
	within(t, lim.released, 3*time.Second, "the concurrency slot released")
	t.Logf("cancelled and released %s after the connection dropped", time.Since(dropped).Round(time.Millisecond))
	_, body := post(t, url, session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_accounts","arguments":{}}}`)
	if strings.Contains(body, "rate_limited") {
		t.Fatalf("the next call was refused: the slot is still held:\n%s", body)
	}
}

// acmeSlow is a query over acme's accounts that the blocking source holds.
const acmeSlow = `{"accounts":["act_1015823746512093"],"metrics":["spend"],"dimensions":["ad_name"],"time_granularity":"daily","date_preset":"last_90d"}`

package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// signalOn is a log handler that closes a channel when a record's message
// starts with prefix: the test's signal that the server reached that point.
type signalOn struct {
	prefix string
	once   *sync.Once
	ch     chan struct{}
}

func (s signalOn) Enabled(context.Context, slog.Level) bool { return true }
func (s signalOn) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, s.prefix) {
		s.once.Do(func() { close(s.ch) })
	}
	return nil
}
func (s signalOn) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s signalOn) WithGroup(string) slog.Handler      { return s }

// TestHTTPDrainIsObservable: after SIGTERM, while a call is in progress, a
// client connecting anew is answered — a new call gets 503 with Retry-After,
// /healthz says "draining" with 503 — not refused at the TCP level; the call
// in progress gets its answer and Serve returns nil.
func TestHTTPDrainIsObservable(t *testing.T) {
	gate := &gateSource{blockingSource: newBlockingSource(t, false, false), started: make(chan struct{}), open: make(chan struct{})}
	cfg := testConfig(t)
	cfg.Source = gate
	draining := make(chan struct{})
	cfg.Logger = slog.New(signalOn{prefix: "shutting down", once: &sync.Once{}, ch: draining})
	h, err := NewHTTPServer(cfg, HTTPOptions{})
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
	base := "http://" + ln.Addr().String()

	cs := connectHTTP(t, base+MCPPath, "claude-code")
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(small)})
		if err != nil {
			t.Errorf("the call in progress failed: %v", err)
		}
		answered <- res
	}()
	<-gate.started
	stop() // SIGTERM
	<-draining

	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	req, _ := http.NewRequest(http.MethodPost, base+MCPPath, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := fresh.Do(req)
	if err != nil {
		t.Fatalf("a new connection while draining: %v (want 503 with Retry-After)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "shutting down") {
		t.Errorf("a new call while draining: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, err = fresh.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("/healthz while draining: %v", err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"draining"`) {
		t.Errorf("/healthz while draining: %d %s", resp.StatusCode, body)
	}

	close(gate.open)
	select {
	case res := <-answered:
		if res == nil || res.IsError || len(res.Content) != 2 {
			t.Errorf("the call in progress did not get its answer: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in progress never finished")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the last call finished")
	}
	if _, err := fresh.Get(base + "/healthz"); err == nil {
		t.Error("the listener is still open after Serve returned")
	}
}

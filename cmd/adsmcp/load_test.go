//go:build linux

package main

// Load and fault tests of the real binary over streamable HTTP on loopback
// (docs/benchmarks.md, "Load and soak (HTTP)"): a soak under concurrent
// sessions, SIGTERM under load, clients that vanish mid-call, and a source
// that never answers. They skip under -short and take about 35 s together.
//
// ADSMCP_SOAK=60s lengthens the soak (10 s by default); ADSMCP_SOAK_SESSIONS
// (8), ADSMCP_SOAK_MIX (small=9,flagship=1) and ADSMCP_SOAK_DB (the small CLI
// test warehouse; e.g. a full demo warehouse anchored at 2026-03-15) choose
// what it runs, for the documented figures.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/loadgen"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// serverProc is `adsmcp serve --http 127.0.0.1:0` running as a process.
type serverProc struct {
	url    string // the /mcp endpoint
	base   string // http://127.0.0.1:PORT
	pid    int
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// startServer starts the binary with args after `serve --http 127.0.0.1:0`
// and returns once /healthz answers. At the end of the test it is stopped
// with SIGTERM (and must exit cleanly) unless it has exited already.
func startServer(t *testing.T, args ...string) *serverProc {
	t.Helper()
	bin := binary(t)
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "ADSMCP_CONFIG=")
	p := &serverProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = cmd.Process.Pid
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if p.err != nil {
				t.Errorf("server exit after SIGTERM: %v\n%s", p.err, p.stderr)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("server still running 30 s after SIGTERM")
		}
	})
	m := p.stderr.await(servingRE, 30*time.Second, p.exited)
	select {
	case <-p.exited:
		t.Fatalf("the server exited: %v\n%s", p.err, p.stderr)
	default:
	}
	if m == nil {
		t.Fatalf("the HTTP server did not say where it serves in 30 s:\n%s", p.stderr)
	}
	p.url, p.base = m[1], strings.TrimSuffix(m[1], "/mcp")
	if code, err := p.health(); code != http.StatusOK {
		t.Fatalf("the HTTP server is not healthy: /healthz %d %v\n%s", code, err, p.stderr)
	}
	return p
}

// health is /healthz's status code (0 and the error when it cannot connect).
func (p *serverProc) health() (int, error) {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(p.base + "/healthz")
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// metricsURL is the server's /metrics when it serves go_goroutines, else "".
func (p *serverProc) metricsURL(t *testing.T) string {
	t.Helper()
	if _, err := p.metric("go_goroutines"); err != nil {
		t.Logf("no server metrics (%v): goroutines are not checked", err)
		return ""
	}
	return p.base + "/metrics"
}

// metric reads one metric from /metrics.
func (p *serverProc) metric(name string) (float64, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(p.base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	m, err := loadgen.ParseMetrics(resp.Body, name)
	if err != nil {
		return 0, err
	}
	v, ok := m[name]
	if !ok {
		return 0, fmt.Errorf("/metrics has no %s", name)
	}
	return v, nil
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration such as 60s", name, v)
	}
	return d
}

// TestSoak: concurrent sessions mixing the small and flagship queries for 10 s
// (ADSMCP_SOAK): no errors of any kind, and the server's goroutines (from
// /metrics) and resident memory (from /metrics, else /proc) flat after the
// warm-up, back near where they started once the sessions close.
func TestSoak(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "load test: not in -short mode")
	}
	dur := envDuration(t, "ADSMCP_SOAK", 10*time.Second)
	sessions := loadgen.DefaultSessions
	if v := os.Getenv("ADSMCP_SOAK_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ADSMCP_SOAK_SESSIONS=%q", v)
		}
		sessions = n
	}
	mixText := "small=9,flagship=1"
	if v := os.Getenv("ADSMCP_SOAK_MIX"); v != "" {
		mixText = v
	}
	mix, err := parseMix(mixText)
	if err != nil {
		t.Fatal(err)
	}
	db := testDB(t)
	if v := os.Getenv("ADSMCP_SOAK_DB"); v != "" {
		db = v
	}
	srv := startServer(t, "--db", db, "--today", "2026-03-15")
	metrics := srv.metricsURL(t)
	rep, err := loadgen.Run(context.Background(), loadgen.Options{
		URL: srv.url, Sessions: sessions, Duration: dur, MaxCalls: 1_000_000, Mix: mix,
		MetricsURL: metrics, PID: srv.pid, SampleEvery: min(max(dur/40, 250*time.Millisecond), 2*time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s over %s, pid %d:\n%s", mixText, db, srv.pid, rep)
	if rep.Errors() != 0 || rep.Cut != 0 || rep.SessionErrors != 0 || rep.Throughput <= 0 {
		t.Errorf("%d errors (transport %v, isError %v, malformed %d), %d cut, %d sessions failed, %.1f calls/s",
			rep.Errors(), rep.TransportErrors, rep.ToolErrors, rep.Malformed, rep.Cut, rep.SessionErrors, rep.Throughput)
	}
	for _, k := range rep.Kinds {
		if k.OK == 0 {
			t.Errorf("no %s call answered", k.Name)
		}
	}
	if rep.ServerToolCalls >= 0 && int(rep.ServerToolCalls) != rep.Calls {
		t.Errorf("the server counted %.0f tool calls, the clients made %d", rep.ServerToolCalls, rep.Calls)
	}
	if rep.RSS == nil || !rep.RSS.Known {
		t.Fatalf("resident memory was not sampled: %+v", rep.RSS)
	}
	if !rep.RSS.Flat {
		t.Errorf("resident memory grew: %.0f MiB after the warm-up, %.0f MiB at the end (limit %.0f MiB)",
			rep.RSS.First/(1<<20), rep.RSS.Last/(1<<20), rep.RSS.Limit/(1<<20))
	}
	if metrics == "" {
		t.Log("goroutines not checked: the server has no /metrics; memory read from /proc only")
		return
	}
	g := rep.Goroutines
	if g == nil || !g.Known || !g.HasBefore || !g.HasAfter {
		t.Fatalf("goroutines were not sampled: %+v", g)
	}
	if !g.Flat {
		t.Errorf("goroutines grew under load: %.0f after the warm-up, %.0f at the end", g.First, g.Last)
	}
	// Closed sessions leave nothing behind (a busy machine may take a few
	// seconds more to tear them down).
	after := g.After
	if after > g.Before+5 && !waitFor(5*time.Second, func() bool {
		v, err := srv.metric("go_goroutines")
		after = v
		return err == nil && v <= g.Before+5
	}) {
		t.Errorf("goroutines: %.0f before the sessions, %.0f after they closed", g.Before, after)
	}
}

// gatedMeta is the Meta API fake behind a gate: while the gate is shut,
// requests wait in it (counted), so the calls that need them stay in flight
// for as long as a test wants; when it opens they go on to the fake.
type gatedMeta struct {
	*httptest.Server
	mu      sync.Mutex
	open    chan struct{} // closed while the gate is open
	waiting atomic.Int64
}

func newGatedMeta(t *testing.T) *gatedMeta {
	t.Helper()
	m := metatest.New(t)
	target, err := url.Parse(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	g := &gatedMeta{open: make(chan struct{})}
	close(g.open)
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		open := g.open
		g.mu.Unlock()
		g.waiting.Add(1)
		select {
		case <-open:
		case <-r.Context().Done():
		}
		g.waiting.Add(-1)
		if r.Context().Err() == nil {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(func() {
		g.release()
		g.Close()
	})
	t.Setenv("TEST_META_TOKEN", m.Token())
	return g
}

func (g *gatedMeta) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *gatedMeta) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// config writes a config whose only source is the gated fake, with workers
// and a request rate that fetch a query's six accounts at once.
func (g *gatedMeta) config(t *testing.T) string {
	return writeConfig(t, "sources:\n  meta:\n    access_token: ${TEST_META_TOKEN}\n    base_url: "+g.URL+
		"\n    workers: 6\n    requests_per_second: 1000\nsync: {every: off}\n")
}

// metaQuery asks the six Meta accounts for spend by account over a week: one
// request per account.
const metaQuery = `{"platforms":["meta_ads"],"metrics":["spend","clicks"],"dimensions":["account_name"],"date_preset":"last_7d"}`

// TestSIGTERMUnderLoad: sessions call a query on the Meta API fake; the fake
// is held back so that every session has a call in flight, and SIGTERM
// arrives. The server drains: new sessions and calls are refused (503, or the
// connection refused) while it waits for the calls in flight; when the fake
// answers, those calls finish with whole answers and the process exits 0,
// well within its deadline and grace.
func TestSIGTERMUnderLoad(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "load test: not in -short mode")
	}
	api := newGatedMeta(t)
	const deadline, sessions = 20 * time.Second, 6
	srv := startServer(t, "--config", api.config(t), "--today", "2026-03-15", "--deadline", deadline.String())

	var (
		mu         sync.Mutex
		results    []loadgen.Result
		okCalls    atomic.Int64
		started    atomic.Int64
		lastResult atomic.Int64 // unix ns
	)
	done := make(chan *loadgen.Report, 1)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		rep, err := loadgen.Run(ctx, loadgen.Options{
			URL: srv.url, Sessions: sessions, Duration: time.Minute, MaxCalls: 5000, Drain: deadline,
			ErrorBackoff: 20 * time.Millisecond,
			Mix:          []loadgen.Call{{Name: "meta", Tool: "query", Args: json.RawMessage(metaQuery), Weight: 1}},
			OnStart:      func(int, string) { started.Add(1) },
			OnResult: func(r loadgen.Result) {
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				lastResult.Store(time.Now().UnixNano())
				if r.Outcome == loadgen.OK {
					okCalls.Add(1)
				}
			},
		})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	// Let the calls flow, then hold the fake back.
	if !waitFor(30*time.Second, func() bool { return okCalls.Load() >= 2*sessions }) {
		t.Fatalf("%d calls answered in 30 s:\n%s", okCalls.Load(), srv.stderr)
	}
	api.shut()
	// Every session has a call waiting when none has finished for a second
	// (a session starts its next call as soon as one finishes), and the fake
	// holds requests of each. (A call's six requests are not all held when
	// some passed before the gate shut.)
	if !waitFor(15*time.Second, func() bool {
		mu.Lock()
		finished := len(results)
		mu.Unlock()
		return started.Load()-int64(finished) == sessions && time.Since(time.Unix(0, lastResult.Load())) > time.Second &&
			api.waiting.Load() >= sessions
	}) {
		t.Fatalf("the calls are not all held: %d requests waiting at the fake", api.waiting.Load())
	}
	sigAt := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The server drains from when /healthz stops saying ok.
	var drainAt time.Time
	for {
		if code, _ := srv.health(); code != http.StatusOK {
			drainAt = time.Now()
			break
		}
		if time.Since(sigAt) > 5*time.Second {
			t.Fatal("/healthz still ok 5 s after SIGTERM")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A new session is refused: 503 while draining, or no listener.
	hc, tr := loadgen.NewHTTPClient(nil)
	_, err := mcp.NewClient(&mcp.Implementation{Name: "late"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: hc, MaxRetries: -1}, nil)
	tr.CloseIdleConnections()
	if c := classifyRefusal(err); c == "" {
		t.Errorf("a session opened while draining: %v", err)
	} else {
		t.Logf("a new session while draining: %s", c)
	}
	// The server waits for its calls in flight: it does not exit while they
	// are held (watched for half a second).
	select {
	case <-srv.exited:
		t.Fatalf("the server exited with calls in flight: %v\n%s", srv.err, srv.stderr)
	case <-time.After(500 * time.Millisecond):
	}
	releasedAt := time.Now()
	api.release()

	select {
	case <-srv.exited:
	case <-time.After(deadline + 2*time.Second + 5*time.Second):
		t.Fatalf("still running %s after SIGTERM:\n%s", time.Since(sigAt), srv.stderr)
	}
	exitAfter := time.Since(sigAt)
	if srv.err != nil {
		t.Errorf("exit: %v\n%s", srv.err, srv.stderr)
	}
	// The sessions go on calling a little (refused), then the load stops.
	exitCalls := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range results {
			if r.Start.After(sigAt.Add(exitAfter)) {
				n++
			}
		}
		return n
	}
	waitFor(2*time.Second, func() bool { return exitCalls() >= 2*sessions })
	stop()
	rep := <-done
	if rep == nil {
		return
	}

	// Every call in flight at the signal finishes, whole, after the release.
	// Calls started after the drain began get no answer. None is truncated.
	var inflight, late, lateRefused = 0, 0, 0
	var lastEnd time.Time
	mu.Lock()
	defer mu.Unlock()
	for _, r := range results {
		switch {
		case r.Outcome == loadgen.Malformed || r.Outcome == loadgen.ToolError:
			t.Errorf("%s answer (%s) from a call started %s after SIGTERM", r.Outcome, r.Type, r.Start.Sub(sigAt))
		case r.Start.Before(sigAt) && r.End.After(sigAt):
			inflight++
			if r.End.After(lastEnd) {
				lastEnd = r.End
			}
			if r.Outcome != loadgen.OK || r.End.Before(releasedAt) {
				t.Errorf("a call in flight at SIGTERM ended %s after it: %s %s %v",
					r.End.Sub(sigAt), r.Outcome, r.Type, r.Err)
			}
		case r.Start.After(drainAt):
			late++
			if r.Outcome == loadgen.TransportError || r.Outcome == loadgen.Cut { // cut: when the load stopped
				lateRefused++
			} else {
				t.Errorf("a call started %s after the drain began was not refused: %s", r.Start.Sub(drainAt), r.Outcome)
			}
		}
	}
	t.Logf("SIGTERM with %d calls in flight, held %s: all answered (the last %s after the release); %d calls after the drain began, %d refused (%v); exit 0 %s after SIGTERM",
		inflight, releasedAt.Sub(sigAt).Round(time.Millisecond), lastEnd.Sub(releasedAt).Round(time.Millisecond),
		late, lateRefused, rep.TransportErrors, exitAfter.Round(time.Millisecond))
	if inflight != sessions {
		t.Errorf("%d calls in flight at SIGTERM, want one per session (%d)", inflight, sessions)
	}
	if late == 0 {
		t.Error("no call was started after the drain began")
	}
}

// classifyRefusal says how a request was refused ("" if it was not).
func classifyRefusal(err error) string {
	if err == nil {
		return ""
	}
	switch c := loadgen.ClassifyError(err); c {
	case "http_503", "connection_refused", "connection_lost", "connection_closed":
		return c
	default:
		return c + ": " + err.Error()
	}
}

// hangingAPI is an API that never answers: every request waits until its
// client gives up. It counts the requests in flight.
type hangingAPI struct {
	*httptest.Server
	inflight, total atomic.Int64
	release         chan struct{}
}

// listingMetaAccounts makes a hanging API answer Meta's account list (one
// account, not counted): calls wait together for one listing (package
// accountlist), so only their reports show each call reaching the API.
func listingMetaAccounts(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasSuffix(r.URL.Path, "/me/adaccounts") {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"data":[{"id":"act_1","account_id":"1","name":"Hanging","currency":"USD","timezone_name":"UTC","account_status":1}]}`)
	return true
}

func newHangingAPI(t *testing.T, answer ...func(http.ResponseWriter, *http.Request) bool) *hangingAPI {
	h := &hangingAPI{release: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, a := range answer {
			if a(w, r) {
				return
			}
		}
		h.total.Add(1)
		h.inflight.Add(1)
		defer h.inflight.Add(-1)
		select {
		case <-r.Context().Done():
		case <-h.release:
		}
	}))
	t.Cleanup(func() {
		close(h.release)
		h.Close()
	})
	return h
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// TestHangingSourceDeadline: a Meta API that never answers; the query
// answers a timeout at the deadline (within 3 s for --deadline 2s), and the
// requests to the API are abandoned. (In process: internal/mcpserver's
// timeout tests; a source failing mid-paging: the connectors' FailMidPaging
// scenarios.)
func TestHangingSourceDeadline(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the binary")
	}
	api := newHangingAPI(t)
	cfg := writeConfig(t, "sources:\n  meta:\n    access_token: test-token\n    base_url: "+api.URL+"\nsync: {every: off}\n")
	srv := startServer(t, "--config", cfg, "--today", "2026-03-15", "--deadline", "2s")
	cs := connectOwn(t, srv.url)
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(metaQuery)})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	outcome, typ, _ := loadgen.CheckAnswer(res, "query", false)
	if outcome != loadgen.ToolError || typ != "timeout" || took > 3*time.Second || took < 2*time.Second {
		t.Fatalf("after %s: %s %s %v", took, outcome, typ, res.Content)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"deadline_seconds":2`) {
		t.Errorf("the timeout does not name its deadline: %s", text)
	}
	if api.total.Load() == 0 || !waitFor(2*time.Second, func() bool { return api.inflight.Load() == 0 }) {
		t.Errorf("%d requests to the API, %d still open after the timeout", api.total.Load(), api.inflight.Load())
	}
	t.Logf("timeout answered after %s", took.Round(time.Millisecond))
}

// connectOwn opens a session with its own connection pool, closed at the end.
func connectOwn(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	hc, tr := loadgen.NewHTTPClient(nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		tr.CloseIdleConnections()
	})
	return cs
}

// droppable is an HTTP transport whose connections can all be cut at once,
// after which it dials no more: a client that vanished (a closed laptop, a
// killed process), which sends neither a cancellation nor a DELETE.
type droppable struct {
	*http.Transport
	mu      sync.Mutex
	conns   []net.Conn
	dropped bool
}

func newDroppable() *droppable {
	d := &droppable{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	var dialer net.Dialer
	d.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.dropped {
			return nil, errors.New("the client is gone")
		}
		c, err := dialer.DialContext(ctx, network, addr)
		if err == nil {
			d.conns = append(d.conns, c)
		}
		return c, err
	}
	return d
}

func (d *droppable) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropped = true
	for _, c := range d.conns {
		c.Close()
	}
}

// TestDisconnectNoLeak: 50 clients start a call on a source that never
// answers and vanish mid-call (their TCP connections cut, no cancellation
// sent). The work is cancelled at once (the requests to the API close long
// before the 30 s deadline), and the server's goroutines (from /metrics)
// return to where they were once the abandoned sessions time out (the test
// sets http.session_idle_timeout to 2 s; 30 min by default, one goroutine
// per session until then).
func TestDisconnectNoLeak(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "load test: not in -short mode")
	}
	api := newHangingAPI(t, listingMetaAccounts)
	cfg := writeConfig(t, "sources:\n  meta:\n    access_token: test-token\n    base_url: "+api.URL+"\nsync: {every: off}\nhttp:\n  session_idle_timeout: 2s\n")
	srv := startServer(t, "--config", cfg, "--today", "2026-03-15", "--deadline", "30s")
	metrics := srv.metricsURL(t)
	goroutines := func() float64 {
		v, err := srv.metric("go_goroutines")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Baseline: after one whole session (list_fields needs no source) closed.
	warm := connectOwn(t, srv.url)
	if _, err := warm.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_fields", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	warm.Close()
	var base float64
	if metrics != "" {
		// Measured once the server has closed the session.
		if !waitFor(10*time.Second, func() bool { n, err := srv.metric("adsmcp_sessions_active"); return err == nil && n == 0 }) {
			t.Fatalf("the warm-up session is still open on the server 10 s after it closed")
		}
		base = goroutines()
	}

	const clients, batch = 50, 10
	var callErrs atomic.Int64
	for b := 0; b < clients/batch; b++ {
		before := api.total.Load()
		var wg sync.WaitGroup
		drops := make([]*droppable, batch)
		for i := range drops {
			d := newDroppable()
			drops[i] = d
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: &http.Client{Transport: d}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(metaQuery)}); err != nil {
					callErrs.Add(1) // the connection was cut: expected
				}
			})
		}
		// Every call reached the source (each asks the API at least once:
		// the account list, which calls share, is answered).
		if !waitFor(10*time.Second, func() bool { return api.total.Load()-before >= batch }) {
			t.Fatalf("the calls did not reach the API: %d requests", api.total.Load()-before)
		}
		for _, d := range drops {
			d.drop()
		}
		wg.Wait()
		for _, d := range drops {
			d.CloseIdleConnections()
		}
	}
	if callErrs.Load() != clients {
		t.Errorf("%d of %d calls failed on the client; all should have lost their connection", callErrs.Load(), clients)
	}
	// The work is cancelled: no request to the API stays open.
	start := time.Now()
	if !waitFor(5*time.Second, func() bool { return api.inflight.Load() == 0 }) {
		t.Fatalf("%d requests to the API still open 5 s after the clients vanished (deadline 30 s)", api.inflight.Load())
	}
	t.Logf("%d clients vanished mid-call; their %d API requests all closed within %s", clients, api.total.Load(), time.Since(start).Round(time.Millisecond))
	if metrics == "" {
		t.Log("goroutines not checked: the server has no /metrics")
		return
	}
	// Only the abandoned sessions remain (one goroutine each at most), then
	// they time out and the count is back to the baseline.
	if g := goroutines(); g > base+clients+10 {
		t.Errorf("goroutines: %.0f at the start, %.0f once the calls were cancelled (%d abandoned sessions)", base, g, clients)
	}
	var last float64
	if !waitFor(15*time.Second, func() bool { last = goroutines(); return last <= base+3 }) {
		t.Errorf("goroutines: %.0f at the start, %.0f 15 s after %d clients vanished mid-call", base, last, clients)
	}
	t.Logf("goroutines: %.0f at the start, %.0f at the end", base, last)
	// The server still serves.
	cs := connectOwn(t, srv.url)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_fields", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
		t.Errorf("after the disconnects: %v %v", err, res)
	}
}

// runLoad runs `adsmcp load` (newLoadCommand; root.go registers it).
func runLoad(args ...string) (stdout string, err error) {
	var out, errb strings.Builder
	cmd := newLoadCommand()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err = cmd.ExecuteContext(context.Background())
	return out.String() + errb.String(), err
}

func TestLoadCommandFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://192.0.2.7:8080/mcp"}, "loopback"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--metrics", "http://example.com/metrics"}, "--metrics"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--mix", "small=9,huge=1"}, `no query named "huge"`},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--mix", "small=0"}, "weights"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--header", "no colon"}, "--header"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--sessions", "0"}, "--sessions"},
		{[]string{}, `"url" not set`},
	} {
		if _, err := runLoad(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
	out, err := runLoad("--help")
	for _, q := range loadQueries {
		if err != nil || !strings.Contains(out, "  "+q.name+" ") {
			t.Errorf("--help does not document %s: %v\n%s", q.name, err, out)
		}
	}
}

// TestLoadCommand: every built-in query of --mix answers as expected on the
// demo data, and the report prints.
func TestLoadCommand(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the binary")
	}
	srv := startServer(t, "--db", testDB(t), "--today", "2026-03-15")
	var mix []string
	for _, q := range loadQueries {
		mix = append(mix, q.name+"=1")
	}
	out, err := runLoad("--url", srv.url, "--sessions", "3", "--duration", "1500ms", "--max-calls", "200",
		"--mix", strings.Join(mix, ","), "--metrics", srv.base+"/metrics", "--pid", strconv.Itoa(srv.pid),
		"--sample-every", "250ms", "--header", "X-Load-Test: 1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range append(mix, "| all |", "| goroutines |", "| RSS |", "Errors: 0 transport, 0 isError, 0 malformed") {
		want, _, _ = strings.Cut(want, "=")
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	out, err = runLoad("--url", srv.url, "--sessions", "1", "--max-calls", "3", "--mix", "small", "--json")
	var rep loadgen.Report
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.OK != 3 {
		t.Errorf("--json: %v\n%s", err, out)
	}
}

// TestLoadCommandHeader: --header carries an API key to a server that needs
// one; without it no session connects.
func TestLoadCommandHeader(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the binary")
	}
	key, hash, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, `
tenants:
  staff: {accounts: ["*"]}
auth:
  api_keys:
    - {id: load, sha256: `+hash+`, tenant: staff}
`)
	srv := startServer(t, "--config", cfg, "--db", testDB(t), "--today", "2026-03-15")
	out, err := runLoad("--url", srv.url, "--sessions", "2", "--max-calls", "6", "--mix", "small,accounts",
		"--header", "Authorization: Bearer "+key)
	if err != nil || !strings.Contains(out, "6 calls") {
		t.Errorf("with the key: %v\n%s", err, out)
	}
	if strings.Contains(out, key) {
		t.Error("the report shows the key")
	}
	if out, err := runLoad("--url", srv.url, "--sessions", "1", "--max-calls", "1", "--mix", "small"); err == nil ||
		!strings.Contains(err.Error(), "no session could connect") {
		t.Errorf("without the key: %v\n%s", err, out)
	}
}

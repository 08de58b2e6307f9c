package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// HTTP defaults.
const (
	// DefaultMaxRequestBytes bounds one request body: a tool call's arguments are
	// a few kilobytes, so a megabyte is generous and still stops memory abuse.
	DefaultMaxRequestBytes = 1 << 20
	// DefaultSessionIdleTimeout closes sessions a client abandoned.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// MCPPath is where the streamable HTTP endpoint lives.
	MCPPath = "/mcp"
)

// HTTPOptions configure the streamable HTTP server.
type HTTPOptions struct {
	// MaxRequestBytes bounds a request body (DefaultMaxRequestBytes when 0);
	// larger bodies get 413.
	MaxRequestBytes int64
	// SessionIdleTimeout closes sessions idle this long (DefaultSessionIdleTimeout when 0).
	SessionIdleTimeout time.Duration
	// AllowedOrigins are browser origins trusted for cross-origin requests, e.g.
	// "https://app.example.com". Others are refused with 403.
	AllowedOrigins []string
	// Auth, when set, wraps /mcp: it authenticates every request and puts the
	// caller's auth.Principal in the go-sdk's token info (401 otherwise).
	Auth func(http.Handler) http.Handler
	// Around, when set, wraps every route (request ids, access log).
	Around func(http.Handler) http.Handler
	// Handlers are more routes, by pattern: "GET /metrics", "GET /readyz",
	// "/.well-known/oauth-protected-resource".
	Handlers map[string]http.Handler
	// Stateless serves every request without a session (protocol 2026-07-28
	// sessionless requests), so replicas behind any load balancer need no sticky
	// sessions. Clients of older protocol versions then have no name for the
	// budget; the User-Agent stands in for it.
	Stateless bool
	// MaxSessions caps open sessions (stateful mode); a new session beyond it
	// gets 503. 0: no cap.
	MaxSessions int

	// Slow clients (see slowclients.go). Zero values take the defaults.

	// ReadTimeout bounds reading a request's headers and body (DefaultReadTimeout).
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response (DefaultWriteTimeout);
	// streams last as long as they keep writing.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxConnections caps open connections (DefaultMaxConnections); at the
	// cap the longest-idle connection is closed to let a new one in.
	MaxConnections int
	// UnauthenticatedPerMinute is each client address's allowance of requests
	// that fail authentication (limits.DefaultUnauthenticatedPerMinute); only
	// with Auth.
	UnauthenticatedPerMinute int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the
	// client for that allowance; none: the peer's address, always.
	TrustedProxies limits.Proxies

	// Sessions (see sessions.go).

	// MaxSessionsPerPrincipal caps each principal's open sessions
	// (DefaultMaxSessionsPerPrincipalFor(MaxSessions)); a new one beyond it
	// gets 429.
	MaxSessionsPerPrincipal int
	// IdleUnderPressure: when a cap would refuse a new session, sessions idle
	// this long are closed to make room (DefaultIdleUnderPressure, at most
	// SessionIdleTimeout).
	IdleUnderPressure time.Duration
}

// HTTPServer serves the MCP server over streamable HTTP at /mcp, stateful so
// every session's client name (and so its budget) is known, with /healthz.
//
// Protection: requests that reach a loopback listener with a non-loopback Host
// header are refused on every route (DNS rebinding, hostGuard), cross-origin browser
// requests from untrusted origins are refused (http.CrossOriginProtection), and
// bodies are bounded.
type HTTPServer struct {
	handler  http.Handler
	mcp      *mcp.Server
	log      *slog.Logger
	deadline time.Duration
	version  string

	posts inflight // POST requests in progress: the tool calls
	// stream is the SDK's handler, which cancelCall talks to.
	stream      http.Handler
	maxBytes    int64
	maxSessions int
	stateless   bool

	accounts *accountCache // the list every call uses, for Ready

	readTimeout, writeTimeout, idleTimeout time.Duration
	conns                                  *connGuard

	limiter           Limiter // the principals' limits (nil: none)
	book              *sessionBook
	perPrincipal      int
	idleUnderPressure time.Duration
}

// inflight counts requests in progress until it is closed; then it refuses new
// ones and signals when the last one leaves.
type inflight struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{}
}

func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.n++
	return true
}

func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.closed && f.n == 0 {
		close(f.idle)
	}
}

// close refuses new requests; the channel closes when none is in progress.
func (f *inflight) close() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		f.idle = make(chan struct{})
		if f.n == 0 {
			close(f.idle)
		}
	}
	return f.idle
}

func (f *inflight) draining() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// NewHTTPServer builds the HTTP server for cfg.
func NewHTTPServer(cfg Config, opts HTTPOptions) (*HTTPServer, error) {
	srv, s := build(cfg)
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.SessionIdleTimeout <= 0 {
		opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	cop := http.NewCrossOriginProtection()
	for _, o := range opts.AllowedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", o, err)
		}
	}
	h := &HTTPServer{mcp: srv, log: s.log, deadline: s.cfg.Deadline, version: cfg.Version, accounts: s.accounts,
		readTimeout:  cmp.Or(opts.ReadTimeout, DefaultReadTimeout),
		writeTimeout: cmp.Or(opts.WriteTimeout, DefaultWriteTimeout),
		idleTimeout:  cmp.Or(opts.IdleTimeout, DefaultIdleTimeout),
		conns:        newConnGuard(cmp.Or(opts.MaxConnections, DefaultMaxConnections), s.log),

		limiter:           s.cfg.Limiter,
		book:              newSessionBook(),
		perPrincipal:      cmp.Or(opts.MaxSessionsPerPrincipal, DefaultMaxSessionsPerPrincipalFor(opts.MaxSessions)),
		idleUnderPressure: idleUnderPressure(opts),
	}
	if h.limiter != nil {
		srv.AddReceivingMiddleware(limitMethods(h.limiter, opts.Stateless))
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.log.Warn("cross-origin request refused", "origin", r.Header.Get("Origin"), "path", r.URL.Path)
		outcome.WriteHTTPError(w, http.StatusForbidden, outcome.HTTPError{Error: "cross-origin request refused: this origin is not in http.allowed_origins"})
	}))
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:              s.log,
		SessionTimeout:      opts.SessionIdleTimeout,
		MaxRequestBodyBytes: opts.MaxRequestBytes,
		Stateless:           opts.Stateless,
		// hostGuard checks the Host of every route, /mcp included, with one
		// rule (IsLoopbackHost). The SDK's own check compares "localhost"
		// case-sensitively (internal/util.IsLoopback in v1.8.0), so it
		// refused on /mcp a Host: LOCALHOST that every other route served.
		DisableLocalhostProtection: true,
	})
	mux := http.NewServeMux()
	h.stream, h.maxBytes, h.maxSessions, h.stateless = stream, opts.MaxRequestBytes, opts.MaxSessions, opts.Stateless
	var mcpHandler http.Handler = h.track(h.checkProtocol(h.cancelOnDisconnect(stream)))
	if opts.Auth != nil {
		mcpHandler = limitUnauthenticated(limits.NewKeyed(opts.UnauthenticatedPerMinute), opts.TrustedProxies, opts.Auth(authenticated(mcpHandler)))
	}
	mux.Handle(MCPPath, cop.Handler(mcpHandler))
	mux.HandleFunc("GET /healthz", h.healthz)
	for pattern, handler := range opts.Handlers {
		mux.Handle(pattern, handler)
	}
	h.handler = hostGuard(mux)
	if opts.Around != nil {
		h.handler = opts.Around(h.handler)
	}
	return h, nil
}

// Handler is the HTTP handler: /mcp and /healthz.
func (h *HTTPServer) Handler() http.Handler { return h.handler }

// track counts POSTs in progress and refuses new ones while shutting down,
// and admits new sessions (admitSession) and books their use.
func (h *HTTPServer) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if !h.posts.enter() {
				w.Header().Set("Retry-After", "5")
				outcome.WriteHTTPError(w, http.StatusServiceUnavailable, outcome.HTTPError{Error: "adsmcp is shutting down: retry in a few seconds"})
				return
			}
			defer h.posts.leave()
			r = h.withPeek(r)
			if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
				defer h.book.use(sid)()
			} else if !h.stateless {
				opened, ok := h.admitSession(w, r, h.opensSession(r))
				if !ok {
					return
				}
				defer opened()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Sessions counts the open sessions that completed initialize (for the cap
// and the sessions gauge). A request
// without a session id may open a short-lived one that never initializes
// (protocol 2026-07-28 clients first ask server/discover); those are not
// client sessions and must not count against the cap.
func (h *HTTPServer) Sessions() int {
	n := 0
	for ss := range h.mcp.Sessions() {
		if ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

func (h *HTTPServer) healthz(w http.ResponseWriter, _ *http.Request) {
	status, code := "ok", http.StatusOK
	if h.posts.draining() {
		status, code = "draining", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"status": status, "version": h.version})
}

// Serve serves on ln until ctx ends, then shuts down gracefully: new tool
// calls are refused with 503 and Retry-After and /healthz says "draining"
// while calls in progress finish (they are bounded by the deadline), then the
// sessions and the listener close and Serve returns.
func (h *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	hs, ln := h.httpServer(), h.listen(ln)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	// Drain: the listener stays open while calls in progress finish, so what
	// arrives meanwhile gets an answer it can act on — 503 with Retry-After
	// for a new call, "draining" from /healthz for the balancer — instead of
	// a refused connection; answers close their connections.
	idle := h.posts.close()
	hs.SetKeepAlivesEnabled(false)
	h.log.Info("shutting down: letting calls in progress finish", "at_most", h.deadline+Grace)
	// Calls end by their deadline; allow that and a little for writing answers.
	sctx, cancel := context.WithTimeout(context.Background(), h.deadline+Grace+2*time.Second)
	defer cancel()
	select {
	case <-idle:
	case <-sctx.Done():
	}
	// Open GET streams never go idle by themselves: closing the sessions ends them.
	for ss := range h.mcp.Sessions() {
		ss.Close()
	}
	err := hs.Shutdown(sctx)
	// No call is left to need the account list: stop refreshing it.
	if err := h.accounts.stop(sctx); err != nil {
		h.log.Warn("shutdown: an account listing did not end in time", "error", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		return errors.New("shutdown: some connections did not close in time and were cut")
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-served // http.ErrServerClosed
	h.log.Info("shut down cleanly")
	return nil
}

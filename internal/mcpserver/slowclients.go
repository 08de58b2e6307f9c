package mcpserver

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/netutil"
)

// Connection defaults: generous for real clients, short for a client that
// holds a connection without using it.
const (
	// DefaultReadTimeout bounds reading one request, headers and body: a body is
	// at most MaxRequestBytes (1 MiB), which even a slow link sends in seconds.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds each write of a response. It is renewed before
	// every write, so an SSE stream may last any time; only a client that stops
	// reading is cut.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle this long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxConnections caps open connections: under the 1,024 file
	// descriptors a process gets by default, leaving room for the warehouse and
	// the upstream APIs.
	DefaultMaxConnections = 900
	// headerTimeout bounds reading the request headers (when ReadTimeout is
	// longer).
	headerTimeout = 10 * time.Second
)

// httpServer is the net/http server of Serve: its timeouts, and the eviction
// of idle connections at the connection cap.
func (h *HTTPServer) httpServer() *http.Server {
	return &http.Server{
		Handler:           h.deadlines(h.handler),
		ReadHeaderTimeout: min(headerTimeout, h.readTimeout),
		ReadTimeout:       h.readTimeout,
		IdleTimeout:       h.idleTimeout,
		ConnState:         h.conns.state,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
	}
}

// listen caps ln at MaxConnections: beyond it new connections wait in the
// kernel's backlog until one closes (netutil.LimitListener), and h.conns
// closes idle ones so that waiting is short.
func (h *HTTPServer) listen(ln net.Listener) net.Listener {
	return netutil.LimitListener(ln, h.conns.max)
}

// deadlines renews the connection's write deadline before every write of the
// response, and lifts the read deadline once the request body is read.
//
// http.Server's WriteTimeout is one deadline for the whole response, which
// would cut SSE streams (GET /mcp, and tool calls that report progress); here
// every write gets WriteTimeout, so only a client that stops reading is cut.
// ReadTimeout bounds reading the request; left in place, it would also end the
// server's background read of an idle connection and so cancel a request still
// being answered (net/http cancels the request's context on that read's
// error), so it is lifted when the body is done.
func (h *HTTPServer) deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, d: h.writeTimeout}
		dw.renew()
		defer dw.renew() // net/http writes what is buffered after the handler
		if r.Body == nil || r.Body == http.NoBody {
			rc.SetReadDeadline(time.Time{})
		} else {
			r.Body = &liftOnEOF{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(dw, r)
	})
}

// deadlineWriter renews the write deadline before each write and flush.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) renew() { w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.renew()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

// FlushError serves the SDK's SSE flushes (through a ResponseController).
func (w *deadlineWriter) FlushError() error {
	w.renew()
	return w.rc.Flush()
}

// Unwrap lets http.NewResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// liftOnEOF lifts the read deadline when the body has been read to its end.
type liftOnEOF struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.once.Do(func() { b.rc.SetReadDeadline(time.Time{}) })
	}
	return n, err
}

// connGuard counts open connections and, when they reach the cap, closes the
// one that has waited longest without a request in progress (idle keep-alive,
// or connected and silent), so that a new connection — /healthz, a new
// session — is accepted instead of waiting for IdleTimeout.
type connGuard struct {
	max int

	mu    sync.Mutex
	open  int
	peak  int
	quiet map[net.Conn]time.Time // connections without a request in progress, since when
	log   *slog.Logger
}

func newConnGuard(max int, log *slog.Logger) *connGuard {
	return &connGuard{max: max, quiet: map[net.Conn]time.Time{}, log: log}
}

// state is http.Server's ConnState hook.
func (g *connGuard) state(c net.Conn, s http.ConnState) {
	now := time.Now()
	g.mu.Lock()
	switch s {
	case http.StateNew:
		g.open++
		g.peak = max(g.peak, g.open)
		g.quiet[c] = now
	case http.StateIdle:
		g.quiet[c] = now
	case http.StateActive:
		delete(g.quiet, c)
	case http.StateHijacked, http.StateClosed:
		delete(g.quiet, c)
		g.open--
	}
	var victim net.Conn
	if g.open >= g.max {
		var since time.Time
		for qc, t := range g.quiet {
			if qc == c && s == http.StateNew {
				continue // the connection just let in is not the one to close
			}
			if victim == nil || t.Before(since) {
				victim, since = qc, t
			}
		}
		if victim != nil {
			delete(g.quiet, victim)
		}
	}
	g.mu.Unlock()
	if victim != nil {
		g.log.Debug("at the connection cap: closing the longest-idle connection", "max_connections", g.max, "remote", victim.RemoteAddr().String())
		victim.Close()
	}
}

// Peak is the most connections that were open at once.
func (g *connGuard) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

package observe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
)

// RequestIDs gives every request an id in the X-Request-Id header
// (mcpserver.RequestIDHeader): the client's (or proxy's) own when it is a
// sane token — 1 to 64 of [A-Za-z0-9._-] — else a new random one. The id is
// set on the request, where the MCP handlers and AccessLog read it, and on
// the response, so the caller can quote it.
func RequestIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(mcpserver.RequestIDHeader)
		if !identifier(id) {
			id = NewRequestID()
		}
		r.Header.Set(mcpserver.RequestIDHeader, id) // replaces any duplicates too
		w.Header().Set(mcpserver.RequestIDHeader, id)
		next.ServeHTTP(w, r)
	})
}

// NewRequestID is a random request id: 32 hex digits.
func NewRequestID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// principalSlot is where NotePrincipal tells AccessLog who the caller was,
// when authentication happens inside the access log's handler.
type principalSlot struct {
	p atomic.Pointer[auth.Principal]
}

type slotKey struct{}

// NotePrincipal tells an enclosing AccessLog the request's principal
// (auth.FromContext). Put it inside the authentication middleware, which
// sets the principal on the request's context — where AccessLog, wrapping
// outside, cannot see it: e.g. HTTPOptions.Auth = func(h) { return
// bearer(observe.NotePrincipal(h)) }. Without an enclosing AccessLog it
// does nothing.
func NotePrincipal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s, ok := r.Context().Value(slotKey{}).(*principalSlot); ok {
			if p := auth.FromContext(r.Context()); p != nil {
				s.p.Store(p)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// AccessLog logs one line per HTTP request when it ends: method, path
// (without the query string), status, bytes written, elapsed_ms,
// request_id, the principal and tenant when known, and remote (the peer's
// address, which is the proxy's behind one). Never headers, tokens, query
// strings or bodies.
//
// The principal is known when authentication ran outside AccessLog, or
// inside it through NotePrincipal. The request id is known when RequestIDs
// wraps it (outside or inside). Server errors (5xx) log at Warn; successful
// probes and scrapes (GET /healthz, /readyz, /metrics) at Debug, so they do
// not drown the log; everything else at Info. Long-lived streams (the MCP
// GET stream) log when they close.
func AccessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started := time.Now()
		slot := &principalSlot{}
		if p := auth.FromContext(r.Context()); p != nil {
			slot.p.Store(p)
		}
		r = r.WithContext(context.WithValue(r.Context(), slotKey{}, slot))
		rec := &recorder{ResponseWriter: w}
		panicked := true
		defer func() {
			status := rec.status
			if status == 0 {
				status = http.StatusOK // what net/http sends for a handler that wrote nothing
				if panicked {
					status = http.StatusInternalServerError
				}
			}
			id := w.Header().Get(mcpserver.RequestIDHeader)
			if id == "" {
				id = r.Header.Get(mcpserver.RequestIDHeader)
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", logPath(r.URL.Path)),
				slog.Int("status", status),
				slog.Int64("bytes", rec.bytes),
				slog.Float64("elapsed_ms", float64(time.Since(started).Microseconds())/1000),
			}
			if identifier(id) { // a bad client id never reaches the log
				attrs = append(attrs, slog.String("request_id", id))
			}
			if p := slot.p.Load(); p != nil {
				attrs = append(attrs, slog.String("principal", p.ID))
				if p.Tenant != "" {
					attrs = append(attrs, slog.String("tenant", p.Tenant))
				}
			}
			attrs = append(attrs, slog.String("remote", r.RemoteAddr))
			level := slog.LevelInfo
			switch {
			case status >= 500:
				level = slog.LevelWarn
			case status < 300 && r.Method == http.MethodGet && quietPaths[r.URL.Path]:
				level = slog.LevelDebug
			}
			log.LogAttrs(r.Context(), level, "http request", attrs...)
		}()
		next.ServeHTTP(rec, r)
		panicked = false
	})
}

// quietPaths are probed or scraped every few seconds.
var quietPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// logPath bounds a path for the log (slog escapes control characters).
func logPath(p string) string {
	const max = 256
	if len(p) > max {
		p = strings.ToValidUTF8(p[:max], "") + "…"
	}
	return p
}

// recorder notes a response's status and size. It passes Flush through and
// unwraps for http.ResponseController, which the MCP streams need.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	http.NewResponseController(r.ResponseWriter).Flush()
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// shortReason is the first line of err's message, at most 120 bytes.
func shortReason(err error) string {
	s := err.Error()
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	const max = 120
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	if s = strings.TrimSpace(s); s == "" {
		s = "not ready"
	}
	return s
}

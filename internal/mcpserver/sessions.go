package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// Session defaults.
const (
	// DefaultMaxSessionsPerPrincipal caps one API key's or OAuth user's open
	// sessions: a person runs a few MCP clients, a team behind one key a few
	// dozen; one key must not take every session of the server.
	DefaultMaxSessionsPerPrincipal = 20
	// DefaultIdleUnderPressure: when a new session would be refused for a cap,
	// sessions idle this long (no request in progress) are closed to make room,
	// instead of waiting for SessionIdleTimeout.
	DefaultIdleUnderPressure = 2 * time.Minute
	// codeRateLimited is the JSON-RPC error of a request the limits refuse
	// (the implementation-defined server error range, -32000 to -32099).
	codeRateLimited = -32029
)

// RateLimiter is a Limiter that can also spend a rate token without a
// concurrency slot (limits.Limiter does): initialize is counted by it.
type RateLimiter interface {
	Allow(p *auth.Principal) (retryAfter time.Duration, ok bool)
}

// sessionBook knows each session's principal and when it was last used, for
// the per-principal cap and for closing idle sessions under pressure. The
// SDK's sessions stay the truth: entries of sessions it closed are dropped.
type sessionBook struct {
	mu      sync.Mutex
	byID    map[string]*booked
	pending map[string]int // principal → new sessions being opened
	now     func() time.Time
}

type booked struct {
	principal string // "" without auth
	active    int    // requests in progress
	last      time.Time
}

func newSessionBook() *sessionBook {
	return &sessionBook{byID: map[string]*booked{}, pending: map[string]int{}, now: time.Now}
}

// use marks a request of session sid in progress until the returned func.
func (b *sessionBook) use(sid string) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.byID[sid]
	if e == nil {
		return func() {}
	}
	e.active++
	e.last = b.now()
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		e.active--
		e.last = b.now()
	}
}

// principalOfRequest is the authenticated caller of an HTTP request, or nil.
func principalOfRequest(r *http.Request) *auth.Principal {
	return auth.FromTokenInfo(sdkauth.TokenInfoFromContext(r.Context()))
}

// admitSession decides a POST without a session id: it spends a rate token of
// the principal, and when it opens a session (opens: an initialize), the
// principal's and the server's session caps hold, after closing sessions idle
// for idleUnderPressure if that makes room.
// When it refuses, it has written the answer; otherwise opened must be called
// once the request is served, to book the new session.
func (h *HTTPServer) admitSession(w http.ResponseWriter, r *http.Request, opens bool) (opened func(), ok bool) {
	p := principalOfRequest(r)
	key := ""
	if p != nil {
		key = p.ID
		if rl, ok := h.limiter.(RateLimiter); ok {
			if retry, ok := rl.Allow(p); !ok {
				secs := max(1, int(retry.Seconds()+0.999))
				w.Header().Set("Retry-After", fmt.Sprint(secs))
				outcome.WriteHTTPError(w, http.StatusTooManyRequests, outcome.HTTPError{Error: fmt.Sprintf("too many requests for this API key or user: retry in %d s", secs)})
				return nil, false
			}
		}
	}
	if !opens {
		return func() {}, true
	}
	b := h.book
	b.mu.Lock()
	live := map[string]*mcp.ServerSession{}
	for ss := range h.mcp.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range b.byID {
		if live[id] == nil {
			delete(b.byID, id)
		}
	}
	counted := func(of func(*booked) bool) (n int, idle []string) {
		now := b.now()
		for id, e := range b.byID {
			if !of(e) || live[id].InitializeParams() == nil {
				continue
			}
			n++
			if e.active == 0 && now.Sub(e.last) >= h.idleUnderPressure {
				idle = append(idle, id)
			}
		}
		slices.SortFunc(idle, func(x, y string) int { return b.byID[x].last.Compare(b.byID[y].last) })
		return n, idle
	}
	var reap []string
	refuse := ""
	if p != nil && h.perPrincipal > 0 {
		n, idle := counted(func(e *booked) bool { return e.principal == key })
		if over := n + b.pending[key] - h.perPrincipal + 1; over > 0 {
			if over > len(idle) {
				refuse = "principal"
			} else {
				reap = idle[:over]
			}
		}
	}
	if refuse == "" && h.maxSessions > 0 {
		n, idle := counted(func(*booked) bool { return true })
		idle = slices.DeleteFunc(idle, func(id string) bool { return slices.Contains(reap, id) })
		pending := 0
		for _, k := range b.pending {
			pending += k
		}
		if over := n - len(reap) + pending - h.maxSessions + 1; over > 0 {
			if over > len(idle) {
				refuse, reap = "server", nil
			} else {
				reap = append(reap, idle[:over]...)
			}
		}
	}
	if refuse == "" {
		for _, id := range reap {
			delete(b.byID, id)
		}
		b.pending[key]++
	}
	b.mu.Unlock()

	for _, id := range reap {
		h.log.Info("closing an idle session to make room for a new one", "session", id, "idle_under_pressure", h.idleUnderPressure)
		live[id].Close()
	}
	switch refuse {
	case "principal":
		w.Header().Set("Retry-After", "30")
		outcome.WriteHTTPError(w, http.StatusTooManyRequests, outcome.HTTPError{Error: fmt.Sprintf("this API key or user has its maximum of %d open sessions: close one (DELETE %s with its Mcp-Session-Id) or retry later", h.perPrincipal, MCPPath)})
		return nil, false
	case "server":
		w.Header().Set("Retry-After", "30")
		outcome.WriteHTTPError(w, http.StatusServiceUnavailable, outcome.HTTPError{Error: fmt.Sprintf("adsmcp has its maximum of %d open sessions: retry later", h.maxSessions)})
		return nil, false
	}
	return func() {
		sid := w.Header().Get("Mcp-Session-Id")
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.pending[key]--; b.pending[key] == 0 {
			delete(b.pending, key)
		}
		if sid != "" {
			b.byID[sid] = &booked{principal: key, last: b.now()}
		}
	}, true
}

// limitMethods applies the principal's limits to the methods that do work
// besides tools/call (which guard limits, answering in the tool's result):
// resources/read and prompts/get take a rate token and a concurrency slot;
// initialize takes a rate token when stateless (stateful sessions are counted
// when they open, in admitSession).
func limitMethods(lim Limiter, stateless bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := principalOf(req.GetExtra())
			if p == nil {
				return next(ctx, method, req)
			}
			switch method {
			case "resources/read", "prompts/get":
				release, retry, ok := lim.Acquire(p)
				if !ok {
					return nil, rateLimitedError(retry)
				}
				defer release()
			case "initialize":
				if rl, ok := lim.(RateLimiter); ok && stateless {
					if retry, ok := rl.Allow(p); !ok {
						return nil, rateLimitedError(retry)
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// rateLimitedError is the JSON-RPC error of a refused request: what happened
// and when to retry, in the message (clients show it) and in data.
func rateLimitedError(retry time.Duration) error {
	secs := max(1, int(retry.Seconds()+0.999))
	data, _ := json.Marshal(map[string]any{"type": outcome.RateLimited, "retry_after_seconds": secs})
	return &jsonrpc.Error{Code: codeRateLimited, Data: data,
		Message: fmt.Sprintf("%s: too many requests for this API key or user right now; nothing was run. Retry in %d s (fewer at once).", outcome.RateLimited, secs)}
}

// idleUnderPressure is opts' value or the default, never over the idle timeout.
func idleUnderPressure(opts HTTPOptions) time.Duration {
	return min(cmp.Or(opts.IdleUnderPressure, DefaultIdleUnderPressure), opts.SessionIdleTimeout)
}

// DefaultMaxSessionsPerPrincipalFor is DefaultMaxSessionsPerPrincipal, held
// under a quarter of the server's cap maxSessions (at least 1; no cap: 0):
// with a cap of 20 and a per-principal default of 20, one key could hold
// every session and lock every other tenant out.
func DefaultMaxSessionsPerPrincipalFor(maxSessions int) int {
	if maxSessions <= 0 {
		return DefaultMaxSessionsPerPrincipal
	}
	return min(DefaultMaxSessionsPerPrincipal, max(1, maxSessions/4))
}

package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// limitUnauthenticated wraps the authentication middleware authn (whose
// inner handler must be passed through authenticated): each client address
// may fail authentication UnauthenticatedPerMinute times a minute. Past that,
// its refusals are 429 with Retry-After instead of 401, and every refusal
// closes the connection, so a flood or a key guesser holds no connection and
// learns nothing more.
//
// The client address is the peer's, or behind a trusted proxy the one its
// X-Forwarded-For names (limits.Proxies.ClientAddr). Requests that
// authenticate never count, and are served even when their address is over
// its allowance: behind an untrusted proxy every client has the proxy's
// address, and one tenant's bad token must not lock out the others.
func limitUnauthenticated(lim *limits.Keyed, proxies limits.Proxies, authn http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &authState{real: w}
		r = r.WithContext(context.WithValue(r.Context(), authStateKey{}, st))
		client := proxies.ClientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For"))
		giveBack, retry, ok := lim.Reserve(limits.ClientKey(client))
		out := http.ResponseWriter(&closingRefusal{ResponseWriter: w})
		if !ok {
			out = &tooMany{ResponseWriter: w, retry: retry}
		}
		authn.ServeHTTP(out, r)
		if st.passed && giveBack != nil {
			giveBack()
		}
	})
}

// authenticated marks a request that passed authentication and gives the
// handler the real ResponseWriter back.
func authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st, ok := r.Context().Value(authStateKey{}).(*authState); ok {
			st.passed, w = true, st.real
		}
		next.ServeHTTP(w, r)
	})
}

type authStateKey struct{}

type authState struct {
	passed bool
	real   http.ResponseWriter
}

// closingRefusal closes the connection after a refusal: the client must come
// back with credentials anyway, and a connection left open is what a slow or
// flooding client wants.
type closingRefusal struct{ http.ResponseWriter }

func (c *closingRefusal) WriteHeader(code int) {
	if code >= 400 {
		c.Header().Set("Connection", "close")
	}
	c.ResponseWriter.WriteHeader(code)
}

// tooMany turns the authentication refusal into 429.
type tooMany struct {
	http.ResponseWriter
	retry   time.Duration
	written bool
}

func (t *tooMany) WriteHeader(int) {
	if t.written {
		return
	}
	t.written = true
	secs := max(1, int(t.retry.Seconds()+0.999))
	t.Header().Set("Retry-After", fmt.Sprint(secs))
	t.Header().Set("Connection", "close")
	outcome.WriteHTTPError(t.ResponseWriter, http.StatusTooManyRequests, outcome.HTTPError{Error: fmt.Sprintf("too many unauthenticated requests from this address: retry in %d s with a valid API key or token", secs)})
}

func (t *tooMany) Write(p []byte) (int, error) {
	if !t.written {
		t.WriteHeader(http.StatusUnauthorized)
	}
	return len(p), nil // the refusal's own body is replaced
}

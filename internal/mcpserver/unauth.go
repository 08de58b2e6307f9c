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
// address, and one tenant's bad token must not lock out the others. So the
// allowance is charged when authn writes its refusal, once the request is
// known to have failed (refusal), never before.
func limitUnauthenticated(lim *limits.Keyed, proxies limits.Proxies, authn http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), authStateKey{}, &authState{real: w}))
		client := proxies.ClientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For"))
		authn.ServeHTTP(&refusal{ResponseWriter: w, charge: func() (time.Duration, bool) {
			return lim.Take(limits.ClientKey(client))
		}}, r)
	})
}

// authenticated gives the handler of a request that passed authentication
// the real ResponseWriter back, so nothing it writes is taken for a refusal.
func authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st, ok := r.Context().Value(authStateKey{}).(*authState); ok {
			w = st.real
		}
		next.ServeHTTP(w, r)
	})
}

type authStateKey struct{}

type authState struct{ real http.ResponseWriter }

// refusal is what authn writes to: only a request that failed
// authentication reaches it (authenticated swaps the real writer back in for
// the others). Its status charges the address's allowance: within it, the
// refusal goes out as authn wrote it; past it, it becomes 429 with
// Retry-After. Either way the connection is closed: the client must come back
// with credentials anyway, and a connection left open is what a slow or
// flooding client wants.
type refusal struct {
	http.ResponseWriter
	charge  func() (retryAfter time.Duration, ok bool)
	decided bool
	over    bool // past the allowance: the 429 is written, authn's body dropped
}

func (f *refusal) WriteHeader(code int) {
	if f.decided {
		return
	}
	f.decided = true
	f.Header().Set("Connection", "close")
	retry, ok := f.charge()
	if ok {
		f.ResponseWriter.WriteHeader(code)
		return
	}
	f.over = true
	secs := max(1, int(retry.Seconds()+0.999))
	f.Header().Set("Retry-After", fmt.Sprint(secs))
	outcome.WriteHTTPError(f.ResponseWriter, http.StatusTooManyRequests, outcome.HTTPError{Error: fmt.Sprintf("too many unauthenticated requests from this address: retry in %d s with a valid API key or token", secs)})
}

func (f *refusal) Write(p []byte) (int, error) {
	if !f.decided {
		f.WriteHeader(http.StatusUnauthorized)
	}
	if f.over {
		return len(p), nil // the refusal's own body is replaced
	}
	return f.ResponseWriter.Write(p)
}

package auth

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// reasons are every refusal Verify may give.
var reasons = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range []*refusal{errUnknownKey, errRevokedKey, errMalformed, errAlgorithm, errUnknownSigner,
		errSignature, errExpired, errNotYetValid, errIssuedFuture, errNoExpiry, errAudience, errIssuer,
		errNoSubject, errNoTenant, errUnknownTenant, errInvalid} {
		m[e.Error()] = true
	}
	return m
}()

func knownReason(s string) bool {
	return reasons["invalid token: "+s] || strings.HasPrefix(s, "insufficient scope: the token needs ") || strings.HasPrefix(s, "missing bearer token: ")
}

// fuzzSeeds are tokens near the valid ones.
func fuzzSeeds(t testing.TB) []string {
	rs := rsaSigner(0)
	valid := rs.sign(t, claims())
	return []string{
		"", "x", "a.b.c", "..", "Bearer", KeyPrefix, goodKey, revokedKey, otherKey,
		valid, valid[:len(valid)-3], ecSigner().sign(t, claims()), edSigner().sign(t, claims()),
		must(jwt.NewWithClaims(jwt.SigningMethodNone, claims()).SignedString(jwt.UnsafeAllowNoneSignatureType)),
		b64([]byte(`{"alg":"RS256","kid":"rsa-a"}`)) + "." + b64([]byte(`{"exp":"soon","aud":7,"iss":[1]}`)) + ".AAAA",
		b64([]byte(`{"alg":"RS256","kid":{"x":1},"crit":[]}`)) + ".e30.",
		b64([]byte(`{"alg":"EdDSA"}`)) + "." + b64([]byte(`{"sub":"\u0000\u202e","tenant":["acme"]}`)) + ".AA",
	}
}

var (
	fuzzOnce sync.Once
	fuzzFix  *fixture
)

// sharedFixture is one Authenticator for all fuzz inputs (its JWKS server
// lives as long as the test binary).
func sharedFixture(t testing.TB) *fixture {
	fuzzOnce.Do(func() { fuzzFix = newFixture(&keepAlive{TB: t}) })
	return fuzzFix
}

// keepAlive drops cleanups, so the shared fixture outlives the first test.
type keepAlive struct{ testing.TB }

func (keepAlive) Cleanup(func()) {}

// FuzzVerify: any token is refused with a known reason wrapping
// ErrInvalidToken (never a panic, never the token echoed), or accepted with a
// principal.
func FuzzVerify(f *testing.F) {
	fix := sharedFixture(f)
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		ti, err := fix.a.Verify(t.Context(), token, nil)
		if err == nil {
			if p := FromTokenInfo(ti); p == nil || p.Tenant == "" {
				t.Fatalf("accepted without a principal: %+v", ti)
			}
			return
		}
		if !errors.Is(err, sdkauth.ErrInvalidToken) {
			t.Fatalf("error %v does not wrap ErrInvalidToken", err)
		}
		if !reasons[err.Error()] {
			t.Fatalf("unexpected error text %q", err)
		}
	})
}

// FuzzAuthorizationHeader: any Authorization header gets 200, 401 or 403 with
// a parseable challenge and a short JSON body that does not repeat it.
func FuzzAuthorizationHeader(f *testing.F) {
	fix := sharedFixture(f)
	for _, s := range fuzzSeeds(f) {
		f.Add("Bearer " + s)
		f.Add(s)
	}
	f.Add("bearer  " + goodKey)
	f.Add("Bearer " + goodKey + " extra")
	f.Add("Basic dXNlcjpwYXNz")
	f.Add("Bearer \"quoted\", error=\"x\"")
	h := fix.a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if FromContext(r.Context()) == nil {
			t := "no principal"
			http.Error(w, t, http.StatusTeapot)
		}
	}))
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header["Authorization"] = []string{header}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusOK:
			return
		case http.StatusUnauthorized, http.StatusForbidden:
		default:
			t.Fatalf("status %d for %q: %s", w.Code, header, w.Body)
		}
		// Everything in the refusal comes from a fixed vocabulary, so nothing
		// of the header can be in it.
		cs, err := oauthex.ParseWWWAuthenticate(w.Header().Values("WWW-Authenticate"))
		if err != nil || len(cs) != 1 {
			t.Fatalf("WWW-Authenticate %q: %v", w.Header().Values("WWW-Authenticate"), err)
		}
		for k, v := range cs[0].Params {
			ok := k == "resource_metadata" && v == wantMetadataURL || k == "scope" && v == testScope ||
				k == "error" && (v == "invalid_token" || v == "insufficient_scope") || k == "error_description" && knownReason(v)
			if !ok {
				t.Fatalf("challenge parameter %s=%q", k, v)
			}
		}
		var b map[string]string
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || len(b) != 2 || !knownReason(b["error_description"]) {
			t.Fatalf("body %q", w.Body)
		}
	})
}

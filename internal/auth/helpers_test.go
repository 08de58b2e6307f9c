package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Test identities.
const (
	testIssuer   = "https://login.example.test/"
	testResource = "https://ads.example.test/mcp"
	testScope    = "ads:read"
)

// signer is a private key with its kid and JWS method.
type signer struct {
	kid    string
	method jwt.SigningMethod
	priv   crypto.Signer
}

var (
	keysOnce sync.Once
	rsaKeys  [3]*rsa.PrivateKey // 2048-bit
	weakRSA  *rsa.PrivateKey    // 1024-bit
	ecKey    *ecdsa.PrivateKey
	edKey    ed25519.PrivateKey
)

// testKeys generates the keys once per test binary (RSA is slow).
func testKeys(t testing.TB) {
	t.Helper()
	keysOnce.Do(func() {
		for i := range rsaKeys {
			rsaKeys[i] = must(rsa.GenerateKey(rand.Reader, 2048))
		}
		weakRSA = must(rsa.GenerateKey(rand.Reader, 1024)) //nolint:gosec // a deliberately weak key
		ecKey = must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
		_, edKey = must2(ed25519.GenerateKey(rand.Reader))
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

func rsaSigner(i int) signer {
	return signer{kid: "rsa-" + string(rune('a'+i)), method: jwt.SigningMethodRS256, priv: rsaKeys[i]}
}
func ecSigner() signer { return signer{kid: "ec-1", method: jwt.SigningMethodES256, priv: ecKey} }
func edSigner() signer { return signer{kid: "ed-1", method: jwt.SigningMethodEdDSA, priv: edKey} }

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwk is the public JWK of s.
func (s signer) jwk() map[string]any {
	m := map[string]any{"kid": s.kid, "use": "sig"}
	switch k := s.priv.Public().(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", b64(k.N.Bytes()), b64(big.NewInt(int64(k.E)).Bytes())
	case *ecdsa.PublicKey:
		pub := must(k.ECDH()).Bytes() // 0x04 || X || Y
		n := (len(pub) - 1) / 2
		m["kty"], m["crv"], m["x"], m["y"] = "EC", "P-256", b64(pub[1:1+n]), b64(pub[1+n:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", b64(k)
	}
	return m
}

// sign makes a token of claims signed by s (with its kid).
func (s signer) sign(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, claims)
	if s.kid != "" {
		tok.Header["kid"] = s.kid
	}
	str, err := tok.SignedString(s.priv)
	if err != nil {
		t.Fatal(err)
	}
	return str
}

// jwksServer serves a JWK Set that tests can change, counting fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []signer
	fetches atomic.Int32
	fetched chan struct{} // a signal after each fetch starts (one pending at most)
	down    atomic.Bool
}

func newJWKSServer(t testing.TB, keys ...signer) *jwksServer {
	t.Helper()
	s := &jwksServer{keys: keys, fetched: make(chan struct{}, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		select {
		case s.fetched <- struct{}{}:
		default: // a signal is already pending: the waiter will read the count
		}
		if s.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		s.mu.Lock()
		set := make([]map[string]any, 0, len(s.keys))
		for _, k := range s.keys {
			set = append(set, k.jwk())
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"keys": set})
	}))
	t.Cleanup(s.Close)
	return s
}

// awaitFetches waits until n fetches have started, or within has passed
// (false).
func (s *jwksServer) awaitFetches(n int32, within time.Duration) bool {
	timeout := time.After(within)
	for s.fetches.Load() < n {
		select {
		case <-s.fetched:
		case <-timeout:
			return false
		}
	}
	return true
}

func (s *jwksServer) setKeys(keys ...signer) {
	s.mu.Lock()
	s.keys = keys
	s.mu.Unlock()
}

// testTenants: acme sees two Meta accounts, globex everything on Google Ads.
func testTenants() map[string]Tenant {
	return map[string]Tenant{
		"acme":   {Accounts: []string{"act_1011", "act_1012"}},
		"globex": {Accounts: []string{"*"}, Platforms: []string{"google_ads"}},
	}
}

// Test API keys (made by NewKey once).
var (
	keyOnce                       sync.Once
	goodKey, revokedKey, otherKey string
)

func testAPIKeys(t testing.TB) []APIKey {
	t.Helper()
	keyOnce.Do(func() {
		goodKey, _ = must2(NewKey())
		revokedKey, _ = must2(NewKey())
		otherKey, _ = must2(NewKey())
	})
	return []APIKey{
		{ID: "ci-bot", SHA256: HashKey(goodKey), Tenant: "acme", Client: "claude-ai", Budget: 50_000, RequestsPerMinute: 30, MaxConcurrent: 2},
		{ID: "old", SHA256: HashKey(revokedKey), Tenant: "acme", Revoked: true},
	}
}

// fixture is an Authenticator with API keys and OAuth against a local JWKS.
type fixture struct {
	a    *Authenticator
	jwks *jwksServer
}

func newFixture(t testing.TB, edit ...func(*Options)) *fixture {
	t.Helper()
	testKeys(t)
	jwks := newJWKSServer(t, rsaSigner(0), ecSigner(), edSigner())
	opts := Options{
		Tenants: testTenants(),
		APIKeys: testAPIKeys(t),
		OAuth: &OAuth{
			Issuer:         testIssuer,
			JWKSURL:        jwks.URL + "/jwks.json",
			Resource:       testResource,
			RequiredScopes: []string{testScope},
			ClientClaim:    "adsmcp_client",
		},
	}
	for _, e := range edit {
		e(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{a: a, jwks: jwks}
}

// claims are valid claims for the fixture: tenant acme, scope ads:read.
func claims(edit ...func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss":    testIssuer,
		"aud":    testResource,
		"sub":    "user-42",
		"exp":    now.Add(10 * time.Minute).Unix(),
		"iat":    now.Add(-time.Minute).Unix(),
		"nbf":    now.Add(-time.Minute).Unix(),
		"scope":  "openid " + testScope,
		"tenant": "acme",
	}
	for _, e := range edit {
		e(c)
	}
	return c
}

func mustJSON(v any) string { return string(must(json.Marshal(v))) }

// reasonOf is the refusal's reason ("" when err is not a refusal).
func reasonOf(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.reason
	}
	return ""
}

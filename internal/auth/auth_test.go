package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

func TestNewKeyAndHash(t *testing.T) {
	re := regexp.MustCompile(`^adsmcp_[0-9A-Za-z]{43}$`)
	seen := map[string]bool{}
	for range 50 {
		key, hash, err := NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(key) {
			t.Fatalf("key %q does not look like adsmcp_ + 43 base62 characters", key)
		}
		if hash != HashKey(key) || !isHexHash(hash) {
			t.Fatalf("hash %q is not HashKey(key)", hash)
		}
		if seen[key] {
			t.Fatal("NewKey repeated a key")
		}
		seen[key] = true
	}
	// The SHA-256 of "abc", as sha256sum prints it.
	if got, want := HashKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("HashKey(abc) = %s, want %s", got, want)
	}
}

func TestNewValidation(t *testing.T) {
	key := APIKey{ID: "k", SHA256: HashKey("adsmcp_x"), Tenant: "acme"}
	oa := func() *OAuth {
		return &OAuth{Issuer: testIssuer, JWKSURL: "https://login.example.test/jwks", Resource: testResource}
	}
	cases := []struct {
		name string
		opts Options
		want []string // substrings of the error
	}{
		{"nothing", Options{}, []string{"no api_keys and no oauth", "keygen"}},
		{"unknown tenant", Options{Tenants: testTenants(), APIKeys: []APIKey{{ID: "k", SHA256: key.SHA256, Tenant: "initech"}}},
			[]string{`auth.api_keys[0] (id k): tenant "initech" is not defined`, "tenants:"}},
		{"empty tenant", Options{Tenants: testTenants(), APIKeys: []APIKey{{ID: "k", SHA256: key.SHA256}}}, []string{"tenant is empty"}},
		{"key instead of hash", Options{Tenants: testTenants(), APIKeys: []APIKey{{ID: "k", SHA256: "adsmcp_abc", Tenant: "acme"}}},
			[]string{"sha256 must be the 64 hex characters", "not the key itself"}},
		{"no id", Options{Tenants: testTenants(), APIKeys: []APIKey{{SHA256: key.SHA256, Tenant: "acme"}}}, []string{"auth.api_keys[0]: id is empty"}},
		{"duplicate", Options{Tenants: testTenants(), APIKeys: []APIKey{key, key}}, []string{"ids must be unique", "listed twice"}},
		{"budget", Options{Tenants: testTenants(), APIKeys: []APIKey{{ID: "k", SHA256: key.SHA256, Tenant: "acme", Budget: 10}}}, []string{"budget 10 is out of range"}},
		{"tenant without accounts", Options{Tenants: map[string]Tenant{"acme": {}}, APIKeys: []APIKey{key}}, []string{"tenants.acme.accounts is empty"}},
		{"bad platform", Options{Tenants: map[string]Tenant{"acme": {Accounts: []string{"*"}, Platforms: []string{"meta"}}}, APIKeys: []APIKey{key}},
			[]string{`tenants.acme.platforms[0] "meta" is not a platform`, "meta_ads"}},
		{"oauth without issuer", Options{Tenants: testTenants(), OAuth: &OAuth{JWKSURL: "https://x/jwks", Resource: testResource}}, []string{"auth.oauth.issuer is empty"}},
		{"oauth without jwks", Options{Tenants: testTenants(), OAuth: &OAuth{Issuer: testIssuer, Resource: testResource}}, []string{"auth.oauth.jwks_url is empty"}},
		{"oauth without resource", Options{Tenants: testTenants(), OAuth: &OAuth{Issuer: testIssuer, JWKSURL: "https://x/jwks"}},
			[]string{"auth.oauth.resource is empty", "auth.oauth.audience is empty"}},
		{"jwks over http", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.JWKSURL = "http://login.example.test/jwks"; return o }()},
			[]string{"auth.oauth.jwks_url", "must be https"}},
		{"scope with space", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.RequiredScopes = []string{"a b"}; return o }()},
			[]string{"auth.oauth.scopes[0]"}},
		{"negative leeway", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.Leeway = -time.Second; return o }()},
			[]string{"auth.oauth.leeway must not be negative"}},
		{"long leeway", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.Leeway = 6 * time.Minute; return o }()},
			[]string{"auth.oauth.leeway 6m0s is too long: clock skew is seconds, use at most 5m"}},
		{"negative refresh", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.RefreshInterval = -time.Second; return o }()},
			[]string{"auth.oauth: the JWKS refresh interval must not be negative (e.g. 10m)"}},
		{"short refresh", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.RefreshInterval = 500 * time.Millisecond; return o }()},
			[]string{"auth.oauth: the JWKS refresh interval 500ms is too short: use at least 1s (default 10m)"}},
		{"negative lifetime", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.MaxTokenLifetime = -time.Hour; return o }()},
			[]string{"auth.oauth.max_token_lifetime must not be negative (e.g. 24h)"}},
		{"long lifetime", Options{Tenants: testTenants(), OAuth: func() *OAuth { o := oa(); o.MaxTokenLifetime = 1000 * time.Hour; return o }()},
			[]string{"auth.oauth.max_token_lifetime 1000h0m0s is too long: a stolen token is good for that long"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(t.Context(), c.opts)
			if err == nil {
				t.Fatal("New accepted it")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	f := newFixture(t)
	o := f.a.oauth
	if o.Audience != testResource || o.TenantClaim != "tenant" || o.Leeway != DefaultLeeway ||
		o.RefreshInterval != DefaultRefreshInterval || !slices.Equal(o.AuthorizationServers, []string{testIssuer}) {
		t.Errorf("defaults not applied: %+v", o)
	}
	// The JWKS was fetched once, at New.
	if n := f.jwks.fetches.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times at New, want 1", n)
	}
}

func TestAPIKeys(t *testing.T) {
	f := newFixture(t)
	ti, err := f.a.Verify(t.Context(), goodKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := FromTokenInfo(ti)
	if p == nil {
		t.Fatal("TokenInfo carries no principal")
	}
	want := Principal{ID: "key:ci-bot", Tenant: "acme", Accounts: []string{"act_1011", "act_1012"},
		Client: "claude-ai", Budget: 50_000, RequestsPerMinute: 30, MaxConcurrent: 2}
	if p.ID != want.ID || p.Tenant != want.Tenant || !slices.Equal(p.Accounts, want.Accounts) || p.AllAccounts ||
		p.Client != want.Client || p.Budget != want.Budget || p.RequestsPerMinute != 30 || p.MaxConcurrent != 2 {
		t.Errorf("principal = %+v, want %+v", *p, want)
	}
	if ti.UserID != "key:ci-bot" || !slices.Equal(ti.Scopes, []string{testScope}) {
		t.Errorf("TokenInfo = %+v: want UserID key:ci-bot and the required scopes", ti)
	}

	refused := []struct{ name, token, reason string }{
		{"unknown", otherKey, "unknown API key"},
		{"revoked", revokedKey, "revoked API key"},
		{"truncated", goodKey[:len(goodKey)-1], "unknown API key"},
		{"prefix only", KeyPrefix, "unknown API key"},
		// Without the prefix it is not an API key: with OAuth, it is read as a JWT.
		{"wrong prefix", "adsmcq_" + strings.TrimPrefix(goodKey, KeyPrefix), "malformed token"},
		{"no prefix", strings.TrimPrefix(goodKey, KeyPrefix), "malformed token"},
		{"empty", "", "malformed token"},
		{"huge", KeyPrefix + strings.Repeat("a", maxTokenLen), "malformed token"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			ti, err := f.a.Verify(t.Context(), c.token, nil)
			checkRefused(t, ti, err, c.token, c.reason)
		})
	}
}

func TestAPIKeysOnly(t *testing.T) {
	testKeys(t)
	a, err := New(t.Context(), Options{Tenants: testTenants(), APIKeys: append(testAPIKeys(t),
		APIKey{ID: "all", SHA256: HashKey(otherKey), Tenant: "globex"})})
	if err != nil {
		t.Fatal(err)
	}
	ti, err := a.Verify(t.Context(), otherKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := FromTokenInfo(ti); !p.AllAccounts || len(p.Accounts) != 0 || !slices.Equal(p.Platforms, []string{"google_ads"}) || p.Tenant != "globex" {
		t.Errorf("principal = %+v, want every google_ads account", *p)
	}
	if len(ti.Scopes) != 0 || !ti.Expiration.IsZero() {
		t.Errorf("TokenInfo = %+v: an API key has no scopes or expiry without OAuth", ti)
	}
	// A JWT (or anything without the prefix) is just an unknown key here.
	jwtTok := rsaSigner(0).sign(t, claims())
	ti, err = a.Verify(t.Context(), jwtTok, nil)
	checkRefused(t, ti, err, jwtTok, "unknown API key")
	if a.MetadataURL() != "" || a.MetadataPaths() != nil || a.Metadata() != nil {
		t.Error("metadata without OAuth")
	}
}

// checkRefused wants a refusal with reason that wraps ErrInvalidToken and
// does not contain the token.
func checkRefused(t *testing.T, ti *sdkauth.TokenInfo, err error, token, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted (principal %+v), want %q", FromTokenInfo(ti), reason)
	}
	if !errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Errorf("error %v does not wrap ErrInvalidToken", err)
	}
	if got := reasonOf(err); got != reason {
		t.Errorf("reason %q, want %q", got, reason)
	}
	if len(token) >= 8 && strings.Contains(err.Error(), token) {
		t.Errorf("error %q repeats the token", err)
	}
}

func TestJWTValid(t *testing.T) {
	f := newFixture(t)
	for _, s := range []signer{rsaSigner(0), ecSigner(), edSigner()} {
		t.Run(s.method.Alg(), func(t *testing.T) {
			exp := time.Now().Add(10 * time.Minute).Truncate(time.Second)
			tok := s.sign(t, claims(func(c jwt.MapClaims) {
				c["exp"] = exp.Unix()
				c["adsmcp_client"] = "ChatGPT"
			}))
			ti, err := f.a.Verify(t.Context(), tok, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := FromTokenInfo(ti)
			if p.ID != "jwt:user-42" || p.Tenant != "acme" || !slices.Equal(p.Accounts, []string{"act_1011", "act_1012"}) ||
				p.AllAccounts || p.Client != "ChatGPT" {
				t.Errorf("principal = %+v", *p)
			}
			if !ti.Expiration.Equal(exp) || !slices.Equal(ti.Scopes, []string{testScope, "openid"}) || ti.UserID != "jwt:user-42" {
				t.Errorf("TokenInfo = %+v", ti)
			}
		})
	}
	// Variants that are fine too.
	ok := []struct {
		name string
		edit func(jwt.MapClaims)
		sign signer
	}{
		{"aud list", func(c jwt.MapClaims) { c["aud"] = []string{"https://other.test", testResource} }, rsaSigner(0)},
		{"scp list", func(c jwt.MapClaims) { delete(c, "scope"); c["scp"] = []string{testScope} }, rsaSigner(0)},
		{"no nbf or iat", func(c jwt.MapClaims) { delete(c, "nbf"); delete(c, "iat") }, rsaSigner(0)},
		{"within leeway", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() }, rsaSigner(0)},
		{"client_id for sub", func(c jwt.MapClaims) { delete(c, "sub"); c["client_id"] = "svc" }, rsaSigner(0)},
		{"no kid", func(jwt.MapClaims) {}, signer{method: jwt.SigningMethodRS256, priv: rsaKeys[0]}},
		{"PS256", func(jwt.MapClaims) {}, signer{kid: "rsa-a", method: jwt.SigningMethodPS256, priv: rsaKeys[0]}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			if _, err := f.a.Verify(t.Context(), c.sign.sign(t, claims(c.edit)), nil); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

func TestJWTRefused(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Tenants["ghost"] = Tenant{Accounts: []string{"act_9"}}
	})
	rs := rsaSigner(0)
	now := time.Now()
	valid := rs.sign(t, claims())
	parts := strings.Split(valid, ".")

	// alg none: header and payload, empty signature.
	noneTok := must(jwt.NewWithClaims(jwt.SigningMethodNone, claims()).SignedString(jwt.UnsafeAllowNoneSignatureType))
	// Alg confusion: HS256 "signed" with the public key's bytes.
	pubJSON := must(rs.jwkJSON())
	hsTok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims())
	hsTok.Header["kid"] = rs.kid
	confused := must(hsTok.SignedString(pubJSON))
	// Tampered payload: tenant acme → globex, signature kept.
	payload := must(base64.RawURLEncoding.DecodeString(parts[1]))
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"acme"`, `"globex"`, 1))) + "." + parts[2]
	// Tampered signature: one bit of the signature's bytes, re-encoded (a bit
	// flipped in the base64 text can make it invalid base64 — 'z', '-', '_' —
	// which is a malformed token, not a bad signature: one run in twenty).
	sig := must(base64.RawURLEncoding.DecodeString(parts[2]))
	sig[10] ^= 1
	badSig := parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
	// Signed by a key that is not in the JWKS, under a known kid.
	impostor := signer{kid: rs.kid, method: jwt.SigningMethodRS256, priv: rsaKeys[1]}.sign(t, claims())
	// EC key's kid, RSA signature.
	mismatch := signer{kid: "ec-1", method: jwt.SigningMethodRS256, priv: rsaKeys[0]}.sign(t, claims())

	cases := []struct{ name, token, reason string }{
		{"expired", rs.sign(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-5 * time.Minute).Unix() })), "token expired"},
		{"not yet valid", rs.sign(t, claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(5 * time.Minute).Unix() })), "token not yet valid"},
		{"issued in the future", rs.sign(t, claims(func(c jwt.MapClaims) { c["iat"] = now.Add(5 * time.Minute).Unix() })), "token issued in the future"},
		{"no exp", rs.sign(t, claims(func(c jwt.MapClaims) { delete(c, "exp") })), "token has no expiry"},
		{"wrong audience", rs.sign(t, claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.test/mcp" })), "wrong audience"},
		{"wrong audience list", rs.sign(t, claims(func(c jwt.MapClaims) { c["aud"] = []string{"a", "b"} })), "wrong audience"},
		{"no audience", rs.sign(t, claims(func(c jwt.MapClaims) { delete(c, "aud") })), "wrong audience"},
		{"wrong issuer", rs.sign(t, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.test/" })), "wrong issuer"},
		{"wrong issuer and expired", rs.sign(t, claims(func(c jwt.MapClaims) {
			c["iss"] = "https://evil.example.test/"
			c["exp"] = now.Add(-time.Hour).Unix()
		})), "wrong issuer"},
		{"no issuer", rs.sign(t, claims(func(c jwt.MapClaims) { delete(c, "iss") })), "wrong issuer"},
		{"no subject", rs.sign(t, claims(func(c jwt.MapClaims) { delete(c, "sub") })), "token has no subject"},
		{"no tenant", rs.sign(t, claims(func(c jwt.MapClaims) { delete(c, "tenant") })), "token names no tenant"},
		{"unknown tenant", rs.sign(t, claims(func(c jwt.MapClaims) { c["tenant"] = "initech" })), "unknown tenant"},
		{"alg none", noneTok, "unsupported signing algorithm"},
		{"alg none with a signature", noneTok + parts[2], "unsupported signing algorithm"},
		{"HS256 with the public key", confused, "unsupported signing algorithm"},
		{"tampered payload", tampered, "invalid signature"},
		{"tampered signature", badSig, "invalid signature"},
		{"other key under a known kid", impostor, "invalid signature"},
		{"kid of another key type", mismatch, "invalid signature"},
		{"garbage", "not.a.jwt", "malformed token"},
		{"two parts", parts[0] + "." + parts[1], "malformed token"},
		{"bad header", "e30." + parts[1] + "." + parts[2], "unsupported signing algorithm"},
		{"crit header", b64([]byte(`{"alg":"RS256","kid":"rsa-a","crit":["exp"]}`)) + "." + parts[1] + "." + parts[2], "malformed token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ti, err := f.a.Verify(t.Context(), c.token, nil)
			checkRefused(t, ti, err, c.token, c.reason)
		})
	}
	if _, err := f.a.Verify(t.Context(), valid, nil); err != nil {
		t.Errorf("the untampered token is refused: %v", err)
	}
}

// jwkJSON is the public JWK as JSON bytes (what an attacker would use as an
// HMAC secret).
func (s signer) jwkJSON() ([]byte, error) {
	return []byte(strings.TrimSpace(mustJSON(s.jwk()))), nil
}

func TestWeakRSAKeyRefused(t *testing.T) {
	testKeys(t)
	weak := signer{kid: "weak", method: jwt.SigningMethodRS256, priv: weakRSA}
	f := newFixture(t)
	f.jwks.setKeys(rsaSigner(0), weak)
	tok := weak.sign(t, claims())
	ti, err := f.a.Verify(t.Context(), tok, nil)
	checkRefused(t, ti, err, tok, "unknown signing key")
}

// Rotation: a token signed by a new key makes adsmcp fetch the JWKS again
// (once: unknown kids are rate-limited); a key the issuer removed is refused.
func TestJWKSRotation(t *testing.T) {
	f := newFixture(t)
	old, next := rsaSigner(0), rsaSigner(1)
	oldTok := old.sign(t, claims())
	if _, err := f.a.Verify(t.Context(), oldTok, nil); err != nil {
		t.Fatal(err)
	}
	// The issuer rotates: the new key replaces the old one.
	f.jwks.setKeys(next, ecSigner())
	before := f.jwks.fetches.Load()
	if _, err := f.a.Verify(t.Context(), next.sign(t, claims()), nil); err != nil {
		t.Fatalf("token of the rotated key refused: %v", err)
	}
	if n := f.jwks.fetches.Load() - before; n != 1 {
		t.Errorf("JWKS fetched %d times for the new kid, want 1", n)
	}
	// The old key is gone from the cache.
	ti, err := f.a.Verify(t.Context(), oldTok, nil)
	checkRefused(t, ti, err, oldTok, "unknown signing key")
	// Made-up kids do not make adsmcp fetch again (at most once per MinUnknownKeyRefresh).
	before = f.jwks.fetches.Load()
	start := time.Now()
	for i := range 5 {
		tok := signer{kid: "made-up-" + string(rune('a'+i)), method: jwt.SigningMethodRS256, priv: rsaKeys[2]}.sign(t, claims())
		ti, err := f.a.Verify(t.Context(), tok, nil)
		checkRefused(t, ti, err, tok, "unknown signing key")
	}
	if n := f.jwks.fetches.Load() - before; n != 0 {
		t.Errorf("JWKS fetched %d times for made-up kids right after a refresh, want 0", n)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing unknown kids took %s: it should not wait for the rate limit", d)
	}
}

func TestJWKSRefreshInterval(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.OAuth.RefreshInterval = time.Second })
	tok := rsaSigner(0).sign(t, claims())
	if _, err := f.a.Verify(t.Context(), tok, nil); err != nil {
		t.Fatal(err)
	}
	// The issuer drops the key; the next periodic fetch forgets it, with no
	// unknown kid to trigger it.
	f.jwks.setKeys(ecSigner())
	// The periodic refresh fetches one at a time: once the fetch after the
	// first one to see the new set has started, that set is in use.
	if !f.jwks.awaitFetches(f.jwks.fetches.Load()+2, 5*time.Second) {
		t.Fatal("the JWKS was not fetched again within 5 s of a 1 s refresh interval")
	}
	_, err := f.a.Verify(t.Context(), tok, nil)
	if err == nil {
		t.Fatal("the removed key is still accepted")
	}
	if reasonOf(err) != "unknown signing key" {
		t.Fatalf("reason %q, want unknown signing key", reasonOf(err))
	}
}

// A JWKS that cannot be fetched is not the caller's fault: the error does not
// wrap ErrInvalidToken (Middleware answers 503).
func TestJWKSUnavailable(t *testing.T) {
	f := newFixture(t)
	f.jwks.down.Store(true)
	// A new Authenticator whose first fetch fails.
	testKeys(t)
	a, err := New(t.Context(), Options{Tenants: testTenants(), OAuth: &OAuth{
		Issuer: testIssuer, JWKSURL: f.jwks.URL, Resource: testResource,
	}})
	if err != nil {
		t.Fatalf("New must not fail when the JWKS is down: %v", err)
	}
	_, err = a.Verify(t.Context(), rsaSigner(0).sign(t, claims()), nil)
	if !errors.Is(err, errKeysUnavailable) || errors.Is(err, sdkauth.ErrInvalidToken) {
		t.Fatalf("err = %v, want errKeysUnavailable", err)
	}
	// The issuer comes back: the next token with an unknown kid fetches again
	// (after the rate limit); here the cached set of the first fixture stays usable.
	if _, err := f.a.Verify(t.Context(), rsaSigner(0).sign(t, claims()), nil); err != nil {
		t.Errorf("cached keys unusable while the JWKS is down: %v", err)
	}
}

func TestContextCarriesPrincipal(t *testing.T) {
	f := newFixture(t)
	ti, err := f.a.Verify(context.Background(), goodKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := FromTokenInfo(ti); p == nil || p.ID != "key:ci-bot" {
		t.Fatalf("principal %+v", p)
	}
	// Each call builds its own principal: changing one does not change the next.
	FromTokenInfo(ti).Accounts[0] = "act_666"
	ti2, _ := f.a.Verify(context.Background(), goodKey, nil)
	if FromTokenInfo(ti2).Accounts[0] != "act_1011" {
		t.Error("principals share their account slice")
	}
}

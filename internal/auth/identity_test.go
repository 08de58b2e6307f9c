package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// TestSubjectsAreDistinctPrincipals: two different identities of the issuer
// are two principals, however alike their subjects look once made printable —
// the principal ID owns sessions and rate buckets.
func TestSubjectsAreDistinctPrincipals(t *testing.T) {
	f := newFixture(t)
	rs := rsaSigner(0)
	long := strings.Repeat("a", 128)
	bySub := func(sub string) func(jwt.MapClaims) { return func(c jwt.MapClaims) { c["sub"] = sub } }
	byClient := func(id string) func(jwt.MapClaims) {
		return func(c jwt.MapClaims) { delete(c, "sub"); c["client_id"] = id }
	}
	pairs := []struct {
		name string
		a, b func(jwt.MapClaims)
	}{
		{"space and underscore", bySub("x y"), bySub("x_y")},
		{"tab and space", bySub("x\ty"), bySub("x y")},
		{"escape lookalike", bySub("x%20y"), bySub("x y")},
		{"control character", bySub("x\x00y"), bySub("x_y")},
		{"same first 128 bytes", bySub(long + "1"), bySub(long + "2")},
		{"client and user of the same name", byClient("svc"), bySub("svc")},
		{"client named like an escaped user", byClient("svc"), bySub("jwt-client:svc")},
	}
	for _, c := range pairs {
		t.Run(c.name, func(t *testing.T) {
			ta, err := f.a.Verify(t.Context(), rs.sign(t, claims(c.a)), nil)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := f.a.Verify(t.Context(), rs.sign(t, claims(c.b)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if ta.UserID == tb.UserID {
				t.Errorf("two identities share the principal %q", ta.UserID)
			}
			for _, id := range []string{ta.UserID, tb.UserID} {
				if strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) {
					t.Errorf("principal %q is not safe for a log line", id)
				}
			}
		})
	}
	// Plain subjects read as they are.
	ti, err := f.a.Verify(t.Context(), rs.sign(t, claims(bySub("auth0|65f0c1"))), nil)
	if err != nil || ti.UserID != "jwt:auth0|65f0c1" {
		t.Errorf("plain subject: %v %v", ti, err)
	}
	// A subject longer than OpenID Connect allows (255) is refused, not cut.
	_, err = f.a.Verify(t.Context(), rs.sign(t, claims(bySub(strings.Repeat("s", 256)))), nil)
	if reasonOf(err) != "subject too long" {
		t.Errorf("256-byte subject: %v, want refused as subject too long", err)
	}
}

// TestSessionNotSharedBetweenLookalikeSubjects: over HTTP, the session of
// subject "x y" cannot be used or deleted by subject "x_y" (the go-sdk ties a
// session to the TokenInfo.UserID that opened it).
func TestSessionNotSharedBetweenLookalikeSubjects(t *testing.T) {
	f := newFixture(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(f.a.Middleware(stream))
	defer srv.Close()
	rs := rsaSigner(0)
	owner := rs.sign(t, claims(func(c jwt.MapClaims) { c["sub"] = "x y" }))
	other := rs.sign(t, claims(func(c jwt.MapClaims) { c["sub"] = "x_y" }))

	send := func(method, token, sid, body string) *http.Response {
		t.Helper()
		req := must(http.NewRequestWithContext(t.Context(), method, srv.URL, strings.NewReader(body)))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := send(http.MethodPost, owner, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if got := send(http.MethodPost, other, sid, ping).StatusCode; got != http.StatusForbidden {
		t.Errorf("x_y used x y's session: %d, want 403", got)
	}
	if got := send(http.MethodDelete, other, sid, "").StatusCode; got != http.StatusForbidden {
		t.Errorf("x_y deleted x y's session: %d, want 403", got)
	}
	if got := send(http.MethodPost, owner, sid, ping).StatusCode; got != http.StatusOK {
		t.Errorf("the owner's session after the attempts: %d, want 200", got)
	}
}

// TestAllowsComparesPlatform: an account is (platform, id). A tenant given
// Google 617-204-8851 is not given Meta act_6172048851 or TikTok 6172048851.
func TestAllowsComparesPlatform(t *testing.T) {
	google := ads.Account{Platform: "google_ads", AccountID: "617-204-8851"}
	meta := ads.Account{Platform: "meta_ads", AccountID: "act_6172048851"}
	tiktok := ads.Account{Platform: "tiktok_ads", AccountID: "6172048851"}
	cases := []struct {
		name string
		p    Principal
		want map[string]bool // by platform
	}{
		{"google written with dashes", Principal{Accounts: []string{"617-204-8851"}}, map[string]bool{"google_ads": true}},
		{"meta written with act_", Principal{Accounts: []string{"act_6172048851"}}, map[string]bool{"meta_ads": true}},
		{"meta written in capitals", Principal{Accounts: []string{"ACT_6172048851"}}, map[string]bool{"meta_ads": true}},
		{"tiktok named", Principal{Accounts: []string{"tiktok_ads:6172048851"}}, map[string]bool{"tiktok_ads": true}},
		{"google named without dashes", Principal{Accounts: []string{"google_ads:6172048851"}}, map[string]bool{"google_ads": true}},
		{"meta named without act_", Principal{Accounts: []string{"meta_ads:6172048851"}}, map[string]bool{"meta_ads": true}},
		{"bare digits, one platform", Principal{Accounts: []string{"6172048851"}, Platforms: []string{"tiktok_ads"}}, map[string]bool{"tiktok_ads": true}},
		{"bare digits, any platform: none", Principal{Accounts: []string{"6172048851"}}, map[string]bool{}},
		{"every account", Principal{AllAccounts: true}, map[string]bool{"google_ads": true, "meta_ads": true, "tiktok_ads": true}},
	}
	for _, c := range cases {
		for _, a := range []ads.Account{google, meta, tiktok} {
			if got := c.p.Allows(a); got != c.want[a.Platform] {
				t.Errorf("%s: Allows(%s %s) = %v", c.name, a.Platform, a.AccountID, got)
			}
		}
	}
}

// TestTenantAccountsNameTheirPlatform: New refuses an account whose platform
// it cannot tell, or that the tenant's platforms exclude, naming the entry and
// the fix; the principal's accounts are then all unambiguous.
func TestTenantAccountsNameTheirPlatform(t *testing.T) {
	key := APIKey{ID: "k", SHA256: HashKey("adsmcp_x"), Tenant: "acme"}
	for _, c := range []struct {
		name   string
		tenant Tenant
		want   []string
	}{
		{"bare digits", Tenant{Accounts: []string{"act_1", "6172048851"}},
			[]string{`tenants.acme.accounts[1] "6172048851"`, "tiktok_ads:6172048851", "act_6172048851"}},
		{"unknown platform", Tenant{Accounts: []string{"meta:123"}},
			[]string{`tenants.acme.accounts[0] "meta:123"`, "meta_ads, google_ads, tiktok_ads"}},
		{"outside the platforms", Tenant{Accounts: []string{"617-204-8851"}, Platforms: []string{"meta_ads"}},
			[]string{`tenants.acme.accounts[0] "617-204-8851" is a google_ads account`, "tenants.acme.platforms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(t.Context(), Options{Tenants: map[string]Tenant{"acme": c.tenant}, APIKeys: []APIKey{key}})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// Accepted forms.
	a, err := New(t.Context(), Options{Tenants: map[string]Tenant{
		"acme": {Accounts: []string{"act_1", "617-204-8851", "tiktok_ads:72018"}},
		"tok":  {Accounts: []string{"72018"}, Platforms: []string{"tiktok_ads"}},
	}, APIKeys: []APIKey{key}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := a.principal("key:k", "tok")
	if !p.Allows(ads.Account{Platform: "tiktok_ads", AccountID: "72018"}) || p.Allows(ads.Account{Platform: "meta_ads", AccountID: "act_72018"}) {
		t.Errorf("tok's principal %+v", p)
	}
}

// TestTenantClaimExact: a tenant claim is matched as written; surrounding
// spaces are refused, not trimmed.
func TestTenantClaimExact(t *testing.T) {
	f := newFixture(t)
	rs := rsaSigner(0)
	for _, v := range []any{" acme", "acme ", "\tacme", []any{" acme"}} {
		tok := rs.sign(t, claims(func(c jwt.MapClaims) { c["tenant"] = v }))
		ti, err := f.a.Verify(t.Context(), tok, nil)
		checkRefused(t, ti, err, tok, "tenant claim has surrounding spaces")
	}
}

// TestTokenLifetimeCapped: a token valid for longer than MaxTokenLifetime
// (default 24 h) is refused, whatever its exp says.
func TestTokenLifetimeCapped(t *testing.T) {
	now := time.Now()
	f := newFixture(t)
	rs := rsaSigner(0)
	for _, c := range []struct {
		name string
		edit func(jwt.MapClaims)
		ok   bool
	}{
		{"exp 10^18", func(c jwt.MapClaims) { c["exp"] = int64(1e18) }, false},
		{"exp in 25 h", func(c jwt.MapClaims) { c["exp"] = now.Add(25 * time.Hour).Unix() }, false},
		{"exp in 25 h, no iat", func(c jwt.MapClaims) { delete(c, "iat"); c["exp"] = now.Add(25 * time.Hour).Unix() }, false},
		{"issued 30 h before exp", func(c jwt.MapClaims) { c["iat"] = now.Add(-29 * time.Hour).Unix(); c["nbf"] = c["iat"] }, false},
		{"exp in 23 h", func(c jwt.MapClaims) { c["exp"] = now.Add(23 * time.Hour).Unix() }, true},
		{"exp in 23 h, no iat", func(c jwt.MapClaims) { delete(c, "iat"); c["exp"] = now.Add(23 * time.Hour).Unix() }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tok := rs.sign(t, claims(c.edit))
			ti, err := f.a.Verify(t.Context(), tok, nil)
			if c.ok {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			checkRefused(t, ti, err, tok, "token lifetime too long")
		})
	}
	// Configurable.
	short := newFixture(t, func(o *Options) { o.OAuth.MaxTokenLifetime = time.Hour })
	tok := rs.sign(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(2 * time.Hour).Unix() }))
	ti, err := short.a.Verify(t.Context(), tok, nil)
	checkRefused(t, ti, err, tok, "token lifetime too long")
	for _, bad := range []time.Duration{-time.Second, 400 * 24 * time.Hour} {
		_, err := New(t.Context(), Options{Tenants: testTenants(), OAuth: &OAuth{Issuer: testIssuer, JWKSURL: "https://login.example.test/jwks",
			Resource: testResource, MaxTokenLifetime: bad}})
		if err == nil || !strings.Contains(err.Error(), "auth.oauth.max_token_lifetime") {
			t.Errorf("max_token_lifetime %s: %v", bad, err)
		}
	}
}

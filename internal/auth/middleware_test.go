package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

const wantMetadataURL = "https://ads.example.test/.well-known/oauth-protected-resource/mcp"

// protected serves next behind f's Middleware and records what next saw.
type seen struct {
	p      *Principal
	ti     *sdkauth.TokenInfo
	called bool
	flush  bool
}

func protected(a *Authenticator) (http.Handler, *seen) {
	s := &seen{}
	return a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.called = true
		s.p = FromContext(r.Context())
		s.ti = sdkauth.TokenInfoFromContext(r.Context())
		_, s.flush = w.(http.Flusher)
		io.WriteString(w, "ok")
	})), s
}

func call(h http.Handler, authorization string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

type errorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

func decodeBody(t *testing.T, w *httptest.ResponseRecorder) errorBody {
	t.Helper()
	var b errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q is not JSON: %v", w.Body, err)
	}
	if w.Body.Len() > 300 {
		t.Errorf("body is %d bytes, want a short reason: %s", w.Body.Len(), w.Body)
	}
	return b
}

// challenge is the parsed WWW-Authenticate Bearer challenge.
func challenge(t *testing.T, w *httptest.ResponseRecorder) map[string]string {
	t.Helper()
	cs, err := oauthex.ParseWWWAuthenticate(w.Header().Values("WWW-Authenticate"))
	if err != nil || len(cs) != 1 || cs[0].Scheme != "bearer" {
		t.Fatalf("WWW-Authenticate %q: %v", w.Header().Values("WWW-Authenticate"), err)
	}
	return cs[0].Params
}

func TestMiddlewareRefusals(t *testing.T) {
	f := newFixture(t)
	h, s := protected(f.a)
	rs := rsaSigner(0)
	expired := rs.sign(t, claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }))
	noScope := rs.sign(t, claims(func(c jwt.MapClaims) { c["scope"] = "openid profile" }))

	cases := []struct {
		name, header string
		code         int
		err, reason  string // OAuth error and error_description ("" for none)
	}{
		{"no header", "", 401, "", ""},
		{"basic auth", "Basic dXNlcjpwYXNz", 401, "", ""},
		{"bearer without token", "Bearer", 401, "", ""},
		{"unknown key", "Bearer " + otherKey, 401, "invalid_token", "unknown API key"},
		{"revoked key", "Bearer " + revokedKey, 401, "invalid_token", "revoked API key"},
		{"expired", "Bearer " + expired, 401, "invalid_token", "token expired"},
		{"garbage", "Bearer abc.def.ghi", 401, "invalid_token", "malformed token"},
		{"missing scope", "Bearer " + noScope, 403, "insufficient_scope", "insufficient scope: the token needs ads:read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			*s = seen{}
			w := call(h, c.header)
			if w.Code != c.code {
				t.Fatalf("status %d, want %d (body %s)", w.Code, c.code, w.Body)
			}
			if s.called {
				t.Fatal("the protected handler ran")
			}
			params := challenge(t, w)
			if params["resource_metadata"] != wantMetadataURL {
				t.Errorf("resource_metadata = %q, want %q", params["resource_metadata"], wantMetadataURL)
			}
			if params["scope"] != testScope {
				t.Errorf("scope = %q, want %q", params["scope"], testScope)
			}
			if params["error"] != c.err {
				t.Errorf("error = %q, want %q", params["error"], c.err)
			}
			if c.reason != "" && params["error_description"] != c.reason {
				t.Errorf("error_description = %q, want %q", params["error_description"], c.reason)
			}
			b := decodeBody(t, w)
			if c.err != "" && (b.Error != c.err || b.Description != c.reason) {
				t.Errorf("body %+v, want %s: %s", b, c.err, c.reason)
			}
			if c.err == "" && !strings.Contains(b.Description, "missing bearer token") {
				t.Errorf("body %+v, want missing bearer token", b)
			}
			if tok := strings.TrimPrefix(c.header, "Bearer "); len(tok) >= 8 {
				all := w.Body.String() + strings.Join(w.Header().Values("WWW-Authenticate"), "")
				if strings.Contains(all, tok) {
					t.Error("the response repeats the credential")
				}
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Error("refusal may be cached")
			}
		})
	}
}

func TestMiddlewareAccepts(t *testing.T) {
	f := newFixture(t)
	h, s := protected(f.a)
	for _, c := range []struct{ name, token, id string }{
		{"API key", goodKey, "key:ci-bot"},
		{"JWT", ecSigner().sign(t, claims()), "jwt:user-42"},
	} {
		t.Run(c.name, func(t *testing.T) {
			*s = seen{}
			w := call(h, "Bearer "+c.token)
			if w.Code != http.StatusOK || w.Body.String() != "ok" {
				t.Fatalf("status %d body %q", w.Code, w.Body)
			}
			if s.p == nil || s.p.ID != c.id || s.p.Tenant != "acme" || !slices.Equal(s.p.Accounts, []string{"act_1011", "act_1012"}) {
				t.Errorf("FromContext = %+v, want %s of acme", s.p, c.id)
			}
			if FromTokenInfo(s.ti) == nil || s.ti.UserID != c.id {
				t.Errorf("TokenInfoFromContext = %+v", s.ti)
			}
			if !s.flush {
				t.Error("the protected handler lost http.Flusher (streaming needs it)")
			}
		})
	}
	// The scheme is case-insensitive.
	if w := call(h, "bearer "+goodKey); w.Code != http.StatusOK {
		t.Errorf("lower-case bearer: status %d", w.Code)
	}
}

func TestMiddlewareAPIKeysOnly(t *testing.T) {
	testKeys(t)
	a, err := New(t.Context(), Options{Tenants: testTenants(), APIKeys: testAPIKeys(t)})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := protected(a)
	w := call(h, "Bearer nope")
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("status %d", w.Code)
	}
	params := challenge(t, w)
	if _, ok := params["resource_metadata"]; ok {
		t.Error("resource_metadata without OAuth")
	}
	if params["error"] != "invalid_token" || params["error_description"] != "unknown API key" {
		t.Errorf("challenge %v", params)
	}
	if w := call(h, "Bearer "+goodKey); w.Code != http.StatusOK {
		t.Errorf("valid key: status %d", w.Code)
	}
	if w := call(h, ""); w.Header().Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("no credential: WWW-Authenticate %q, want Bearer", w.Header().Get("WWW-Authenticate"))
	}
}

func TestMiddlewareKeysUnavailable(t *testing.T) {
	testKeys(t)
	jwks := newJWKSServer(t)
	jwks.down.Store(true)
	a, err := New(t.Context(), Options{Tenants: testTenants(), OAuth: &OAuth{Issuer: testIssuer, JWKSURL: jwks.URL, Resource: testResource}})
	if err != nil {
		t.Fatal(err)
	}
	h, s := protected(a)
	w := call(h, "Bearer "+rsaSigner(0).sign(t, claims()))
	if w.Code != http.StatusServiceUnavailable || s.called {
		t.Fatalf("status %d, want 503", w.Code)
	}
	if b := decodeBody(t, w); b.Error != "temporarily_unavailable" || w.Header().Get("Retry-After") == "" {
		t.Errorf("body %+v, Retry-After %q", b, w.Header().Get("Retry-After"))
	}
}

func TestMetadata(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.OAuth.AuthorizationServers = []string{"https://auth.example.test"}
		o.OAuth.RequiredScopes = []string{"ads:read", "ads:query"}
	})
	if got := f.a.MetadataURL(); got != wantMetadataURL {
		t.Errorf("MetadataURL = %q, want %q", got, wantMetadataURL)
	}
	if got, want := f.a.MetadataPaths(), []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}; !slices.Equal(got, want) {
		t.Errorf("MetadataPaths = %q, want %q", got, want)
	}
	mux := http.NewServeMux()
	for _, p := range f.a.MetadataPaths() {
		mux.Handle(p, f.a.MetadataHandler())
	}
	for _, p := range f.a.MetadataPaths() {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("%s: status %d, type %q", p, w.Code, w.Header().Get("Content-Type"))
		}
		var raw map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"resource":                 testResource,
			"authorization_servers":    []any{"https://auth.example.test"},
			"scopes_supported":         []any{"ads:read", "ads:query"},
			"bearer_methods_supported": []any{"header"},
			"resource_name":            "adsmcp",
		}
		if got, want := mustJSON(raw), mustJSON(want); got != want {
			t.Errorf("%s:\n got %s\nwant %s", p, got, want)
		}
		if w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Error("no CORS header: browser clients cannot discover the authorization server")
		}
	}
	// What an MCP client does with it: the go-sdk's own discovery accepts it.
	srv := httptest.NewServer(mux)
	defer srv.Close()
	prm, err := oauthex.GetProtectedResourceMetadata(t.Context(), srv.URL+"/.well-known/oauth-protected-resource/mcp", testResource, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if prm.Resource != testResource {
		t.Errorf("resource %q", prm.Resource)
	}

	// Resource at the root: one path.
	g := newFixture(t, func(o *Options) { o.OAuth.Resource = "https://ads.example.test"; o.OAuth.Audience = "adsmcp" })
	if got := g.a.MetadataURL(); got != "https://ads.example.test/.well-known/oauth-protected-resource" {
		t.Errorf("MetadataURL = %q", got)
	}
	if got := g.a.MetadataPaths(); !slices.Equal(got, []string{WellKnownPath}) {
		t.Errorf("MetadataPaths = %q", got)
	}

	// Without OAuth: 404.
	a, err := New(t.Context(), Options{Tenants: testTenants(), APIKeys: testAPIKeys(t)})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	a.MetadataHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, WellKnownPath, nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("without OAuth: status %d, want 404", w.Code)
	}
}

// End to end with the go-sdk: the principal reaches a tool handler through
// the streamable HTTP transport (req.Extra.TokenInfo).
func TestMiddlewareWithMCP(t *testing.T) {
	f := newFixture(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		p := FromTokenInfo(req.Extra.TokenInfo)
		id := "nobody"
		if p != nil {
			id = p.ID + "@" + p.Tenant
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id}}}, nil, nil
	})
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(f.a.Middleware(stream))
	defer srv.Close()

	for _, c := range []struct{ token, want string }{
		{goodKey, "key:ci-bot@acme"},
		{rsaSigner(0).sign(t, claims()), "jwt:user-42@acme"},
	} {
		hc := &http.Client{Transport: bearer{c.token}}
		client := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != c.want {
			t.Errorf("tool saw %q, want %q", got, c.want)
		}
		cs.Close()
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

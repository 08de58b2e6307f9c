package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/adsmcp/adsmcp/internal/outcome"
)

// WellKnownPath is where Protected Resource Metadata lives (RFC 9728 §3);
// for a resource with a path (https://host/mcp) the path follows it
// (/.well-known/oauth-protected-resource/mcp).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Middleware lets through requests that carry a valid bearer credential
// (Authorization: Bearer <API key or access token>); the handler finds the
// caller with FromContext(r.Context()) and the MCP layer in
// req.Extra.TokenInfo. Others get:
//
//   - 401 with WWW-Authenticate: Bearer resource_metadata="…" (with OAuth),
//     and error="invalid_token", error_description="<reason>" when a
//     credential was sent but refused;
//   - 403 with error="insufficient_scope" when a token lacks
//     OAuth.RequiredScopes;
//   - 503 when the issuer's signing keys cannot be fetched.
//
// The body is a short JSON object with the same error and reason; it never
// repeats the credential.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	var scopes []string
	if a.oauth != nil {
		scopes = a.oauth.RequiredScopes
	}
	opts := &sdkauth.RequireBearerTokenOptions{
		ResourceMetadataURL: a.metadataURL,
		Scopes:              scopes,
		// API keys do not expire; Verify requires exp of every JWT and
		// checks it with the leeway.
		AllowMissingExpiration: true,
	}
	if a.oauth != nil {
		opts.ClockSkew = a.oauth.Leeway
	}
	// The go-sdk middleware puts the TokenInfo where the MCP handler (and
	// sdkauth.TokenInfoFromContext) finds it; it writes refusals to a
	// challengeWriter, which Middleware then words itself.
	sdk := sdkauth.RequireBearerToken(a.Verify, opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw, ok := w.(*challengeWriter)
		if !ok { // not reached: only Middleware calls sdk
			outcome.WriteHTTPError(w, http.StatusInternalServerError, outcome.HTTPError{Error: "internal error"})
			return
		}
		cw.passed = true
		ctx := r.Context()
		if p := FromTokenInfo(sdkauth.TokenInfoFromContext(ctx)); p != nil {
			ctx = WithPrincipal(ctx, p)
		}
		next.ServeHTTP(cw.orig, r.WithContext(ctx))
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &verdict{}
		cw := &challengeWriter{orig: w, header: http.Header{}}
		sdk.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), verdictKey{}, v)))
		if !cw.passed {
			a.refuse(w, r, cw.code, v)
		}
	})
}

// challengeWriter stands in for the response while the go-sdk middleware
// decides: it keeps the status of a refusal and drops the rest, so that
// Middleware writes the refusal in one place.
type challengeWriter struct {
	orig   http.ResponseWriter
	header http.Header
	code   int
	passed bool
}

func (c *challengeWriter) Header() http.Header { return c.header }
func (c *challengeWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
}
func (c *challengeWriter) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	return len(b), nil
}

// refuse answers a request the go-sdk middleware refused with code; v is
// what Verify said (not called: no bearer token).
func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, code int, v *verdict) {
	var (
		oauthErr, reason string
		params           []string
	)
	if a.metadataURL != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", a.metadataURL))
	}
	var scopes []string
	if a.oauth != nil {
		scopes = a.oauth.RequiredScopes
	}
	if len(scopes) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
	}
	var ref *refusal
	switch {
	case code == http.StatusForbidden:
		oauthErr, reason = oauthInsufficientScope, errInsufficientScp.reason
		if len(scopes) > 0 {
			reason += ": the token needs " + strings.Join(scopes, " ")
		}
	case code == http.StatusUnauthorized && !v.called:
		// No credential at all: RFC 6750 §3.1 wants no error code then.
		reason = "missing bearer token: send Authorization: Bearer <API key or access token>"
	case code == http.StatusUnauthorized && errors.As(v.err, &ref):
		oauthErr, reason = oauthInvalidToken, ref.reason
	case code == http.StatusUnauthorized && v.err == nil:
		// Verify accepted it, the go-sdk's own expiry check did not (the
		// token expired in between).
		oauthErr, reason = oauthInvalidToken, errExpired.reason
	case code == http.StatusUnauthorized:
		oauthErr, reason = oauthInvalidToken, errInvalid.reason
	default: // the JWKS could not be fetched (or the go-sdk failed)
		a.log.WarnContext(r.Context(), "refusing a request: cannot check its bearer token", "remote", r.RemoteAddr)
		w.Header().Set("Retry-After", "30")
		outcome.WriteHTTPError(w, http.StatusServiceUnavailable, outcome.HTTPError{Error: oauthTemporarilyUnavailable,
			Description: "cannot check the token right now; retry later"})
		return
	}
	if oauthErr != "" {
		params = append(params, fmt.Sprintf("error=%q", oauthErr), fmt.Sprintf("error_description=%q", reason))
	}
	challenge := "Bearer"
	if len(params) > 0 {
		challenge += " " + strings.Join(params, ", ")
	}
	w.Header().Set("WWW-Authenticate", challenge)
	if oauthErr == "" {
		oauthErr = oauthUnauthorized
	}
	outcome.WriteHTTPError(w, code, outcome.HTTPError{Error: oauthErr, Description: reason})
}

// OAuth error codes of the refusals (RFC 6750 §3.1), in the body's "error"
// and the challenge's error=; docs/auth.md lists when each is sent.
const (
	oauthInvalidToken           = "invalid_token"
	oauthInsufficientScope      = "insufficient_scope"
	oauthTemporarilyUnavailable = "temporarily_unavailable"
	// oauthUnauthorized is the body's code when no credential was sent: RFC
	// 6750 wants no error= in the challenge then, but the body names one.
	oauthUnauthorized = "unauthorized"
)

// MetadataURL is the Protected Resource Metadata URL announced in
// WWW-Authenticate (empty without OAuth): the resource's URL with
// WellKnownPath inserted before its path.
func (a *Authenticator) MetadataURL() string { return a.metadataURL }

// MetadataPaths are the paths to serve MetadataHandler at: WellKnownPath and
// WellKnownPath followed by the resource's path (/mcp). None without OAuth.
func (a *Authenticator) MetadataPaths() []string {
	if a.oauth == nil {
		return nil
	}
	paths := []string{WellKnownPath}
	if u, err := url.Parse(a.oauth.Resource); err == nil {
		if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
			paths = append(paths, WellKnownPath+p)
		}
	}
	return paths
}

// MetadataHandler serves the RFC 9728 Protected Resource Metadata of the
// OAuth configuration (resource, authorization_servers, scopes_supported,
// bearer_methods_supported), with CORS for browser clients. Without OAuth it
// answers 404.
func (a *Authenticator) MetadataHandler() http.Handler {
	if a.oauth == nil {
		return http.NotFoundHandler()
	}
	return sdkauth.ProtectedResourceMetadataHandler(a.Metadata())
}

// Metadata is the Protected Resource Metadata (nil without OAuth).
func (a *Authenticator) Metadata() *oauthex.ProtectedResourceMetadata {
	if a.oauth == nil {
		return nil
	}
	return &oauthex.ProtectedResourceMetadata{
		Resource:               a.oauth.Resource,
		AuthorizationServers:   append([]string(nil), a.oauth.AuthorizationServers...),
		ScopesSupported:        append([]string(nil), a.oauth.RequiredScopes...),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "adsmcp",
	}
}

// metadataURL inserts WellKnownPath between the resource's host and path.
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	m := &url.URL{Scheme: u.Scheme, Host: u.Host}
	return m.String() + WellKnownPath + path
}

package auth

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Defaults of the OAuth options.
const (
	// DefaultTenantClaim is the JWT claim naming the caller's tenant.
	DefaultTenantClaim = "tenant"
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// DefaultRefreshInterval is how often the JWKS is fetched again.
	DefaultRefreshInterval = 10 * time.Minute
	// MinUnknownKeyRefresh is the least time between two JWKS fetches caused
	// by tokens signed with a key (kid) that is not in the cached set.
	MinUnknownKeyRefresh = 30 * time.Second
	// jwksTimeout bounds one JWKS fetch.
	jwksTimeout = 10 * time.Second
	// DefaultMaxTokenLifetime is the longest an access token may be valid
	// (exp − iat): Okta's and Entra ID's tokens live an hour, Auth0's a day
	// by default.
	DefaultMaxTokenLifetime = 24 * time.Hour
	// maxMaxTokenLifetime bounds the setting (Auth0's own maximum).
	maxMaxTokenLifetime = 30 * 24 * time.Hour
	// minBudget and maxBudget bound a key's token budget, as budgets: does.
	minBudget, maxBudget = 1_000, 1_000_000
)

// Tenant is an organization: the accounts and platforms its callers may see.
type Tenant struct {
	// Accounts are account IDs ("act_1015…", "123-456-7890"); "*" means every
	// account.
	Accounts []string
	// Platforms, when not empty, restrict the accounts to these platforms
	// (meta_ads, google_ads, tiktok_ads).
	Platforms []string
}

// APIKey is one API key as the configuration stores it: its hash, never the
// key itself.
type APIKey struct {
	// ID names the key in logs and in the principal ("key:<id>").
	ID string
	// SHA256 is the lower-case hex SHA-256 of the key (HashKey); adsmcp
	// keygen prints it.
	SHA256 string
	// Tenant is the key's tenant, a name in Options.Tenants.
	Tenant string
	// Client is the budget profile (a client name such as claude-ai); empty
	// means the MCP client's own name.
	Client string
	// Budget, when positive, is the token budget of the key's calls.
	Budget int
	// Revoked keys are refused ("revoked API key").
	Revoked bool
	// RequestsPerMinute and MaxConcurrent override the server's per-caller
	// limits when positive.
	RequestsPerMinute, MaxConcurrent int
}

// OAuth configures adsmcp as an OAuth 2.1 resource server (the MCP
// authorization spec): bearer JWTs issued by an authorization server and
// checked against its JWKS.
type OAuth struct {
	// Issuer is the exact "iss" of accepted tokens.
	Issuer string
	// Audience is the "aud" accepted tokens must carry (one of them, when
	// "aud" is a list). Empty means Resource, which is what MCP clients ask
	// the authorization server for (RFC 8707).
	Audience string
	// JWKSURL is where the issuer publishes its signing keys (https, or http
	// on a loopback address).
	JWKSURL string
	// RequiredScopes must all be granted ("scope" or "scp" claim); a token
	// without them gets 403 insufficient_scope.
	RequiredScopes []string
	// TenantClaim is the claim naming the caller's tenant (DefaultTenantClaim
	// when empty).
	TenantClaim string
	// ClientClaim, when set, is a claim naming the caller's budget profile.
	ClientClaim string
	// Leeway is the clock skew allowed on exp, nbf and iat (DefaultLeeway
	// when 0).
	Leeway time.Duration
	// Resource is this server's public MCP URL (https://host/mcp), announced
	// in the Protected Resource Metadata.
	Resource string
	// AuthorizationServers are the issuers clients may get tokens from
	// (Issuer when empty).
	AuthorizationServers []string
	// RefreshInterval is how often the JWKS is fetched again
	// (DefaultRefreshInterval when 0). A token signed by a key not in the
	// cached set also triggers a fetch, at most once per MinUnknownKeyRefresh.
	RefreshInterval time.Duration
	// HTTPClient fetches the JWKS (a client with a 10 s timeout when nil).
	HTTPClient *http.Client
	// MaxTokenLifetime refuses tokens valid for longer: exp − iat (exp − now
	// without iat) beyond it, plus Leeway (DefaultMaxTokenLifetime when 0).
	MaxTokenLifetime time.Duration
}

// Options configure an Authenticator.
type Options struct {
	// Tenants by name.
	Tenants map[string]Tenant
	// APIKeys are the accepted API keys, hashed.
	APIKeys []APIKey
	// OAuth, when set, also accepts OAuth access tokens (JWTs).
	OAuth *OAuth
	// Logger receives refusals (at debug, with the reason, never the token)
	// and JWKS fetch failures; nil discards.
	Logger *slog.Logger
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkResource accepts an absolute http(s) URL without fragment.
func checkResource(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return errors.New("want an absolute URL such as https://ads.example.com/mcp")
	}
	if u.Fragment != "" || u.RawQuery != "" {
		return errors.New("must not have a query or fragment")
	}
	return nil
}

// checkJWKSURL accepts https, and http on loopback addresses (for tests and
// an authorization server on the same host).
func checkJWKSURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return errors.New("want an absolute URL such as https://login.example.com/.well-known/jwks.json")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return errors.New("must be https (http only on localhost): keys fetched in clear text could be forged")
	}
	return errors.New("want an https URL")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Authenticator turns bearer credentials into principals.
type Authenticator struct {
	log     *slog.Logger
	tenants map[string]Tenant
	keys    []storedKey
	oauth   *OAuth
	jwt     *jwtVerifier // nil without OAuth
	// metadataURL is where the Protected Resource Metadata is served
	// (empty without OAuth).
	metadataURL string
}

// New checks opts and builds an Authenticator. With OAuth it fetches the
// JWKS once (a failure is logged, not fatal: the keys are fetched again when
// a token needs them) and refreshes it in the background until ctx ends.
func New(ctx context.Context, opts Options) (*Authenticator, error) {
	oa, err := opts.validate()
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{log: log, tenants: make(map[string]Tenant, len(opts.Tenants)), oauth: oa}
	for name, t := range opts.Tenants {
		a.tenants[name] = Tenant{Accounts: slices.Clone(t.Accounts), Platforms: slices.Clone(t.Platforms)}
	}
	for _, k := range opts.APIKeys {
		sk, err := newStoredKey(k)
		if err != nil {
			return nil, err // validated above
		}
		a.keys = append(a.keys, sk)
	}
	if oa != nil {
		a.metadataURL = metadataURL(oa.Resource)
		a.jwt, err = newJWTVerifier(ctx, oa, log)
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// principal is a fresh principal of tenant name (which New checked, or a
// token named; ok is false when it is not configured).
func (a *Authenticator) principal(id, tenant string) (*Principal, bool) {
	t, ok := a.tenants[tenant]
	if !ok {
		return nil, false
	}
	p := &Principal{ID: id, Tenant: tenant, Platforms: slices.Clone(t.Platforms)}
	for _, acc := range t.Accounts {
		if acc == "*" {
			p.AllAccounts = true
			continue
		}
		p.Accounts = append(p.Accounts, acc)
	}
	return p, true
}

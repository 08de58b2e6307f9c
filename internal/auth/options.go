package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
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

// validate checks o and fills the OAuth defaults, naming each setting by its
// place in the configuration file (auth.…). It reports every problem at once.
func (o *Options) validate() (*OAuth, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	for name, t := range o.Tenants {
		where := fmt.Sprintf("tenants.%s", name)
		if strings.TrimSpace(name) == "" {
			bad("tenants: a tenant has an empty name; name it, e.g. acme:")
		}
		if len(t.Accounts) == 0 {
			bad(`%s.accounts is empty: list the account IDs this tenant may query, or "*" for all`, where)
		}
		for i, a := range t.Accounts {
			if strings.TrimSpace(a) == "" {
				bad("%s.accounts[%d] is empty: write an account ID such as act_1015… or 123-456-7890", where, i)
				continue
			}
			if a == "*" {
				continue
			}
			ref, err := readAccount(a, t.Platforms)
			switch {
			case err != nil:
				bad("%s.accounts[%d] %q %v", where, i, a, err)
			case len(t.Platforms) > 0 && !slices.Contains(t.Platforms, ref.platform):
				bad("%s.accounts[%d] %q is a %s account, but %s.platforms (%s) leaves it out: add %s there or remove the account",
					where, i, a, ref.platform, where, strings.Join(t.Platforms, ", "), ref.platform)
			}
		}
		for i, p := range t.Platforms {
			if !slices.Contains(catalog.AllPlatforms, p) {
				bad("%s.platforms[%d] %q is not a platform: use %s", where, i, p, strings.Join(catalog.AllPlatforms, ", "))
			}
		}
	}

	ids := map[string]int{}
	hashes := map[string]int{}
	for i, k := range o.APIKeys {
		where := fmt.Sprintf("auth.api_keys[%d]", i)
		if k.ID != "" {
			where = fmt.Sprintf("auth.api_keys[%d] (id %s)", i, k.ID)
		}
		switch {
		case k.ID == "":
			bad("%s: id is empty: name the key (it appears in logs), e.g. id: ci-bot", where)
		case strings.ContainsAny(k.ID, " \t\r\n"):
			bad("%s: id must not contain spaces", where)
		default:
			if j, dup := ids[k.ID]; dup {
				bad("%s: id is also the id of auth.api_keys[%d]; ids must be unique", where, j)
			}
			ids[k.ID] = i
		}
		h := strings.ToLower(strings.TrimSpace(k.SHA256))
		if !isHexHash(h) {
			bad("%s: sha256 must be the 64 hex characters adsmcp keygen prints (the SHA-256 of the key, not the key itself)", where)
		} else {
			if j, dup := hashes[h]; dup {
				bad("%s: sha256 is also the hash of auth.api_keys[%d]; the same key is listed twice", where, j)
			}
			hashes[h] = i
		}
		if k.Tenant == "" {
			bad("%s: tenant is empty: name one of tenants:", where)
		} else if _, ok := o.Tenants[k.Tenant]; !ok {
			bad("%s: tenant %q is not defined: add it under tenants: (with its accounts) or fix the name", where, k.Tenant)
		}
		if k.Budget != 0 && (k.Budget < minBudget || k.Budget > maxBudget) {
			bad("%s: budget %d is out of range: use %d–%d tokens, or leave it out for the client's default", where, k.Budget, minBudget, maxBudget)
		}
		if k.RequestsPerMinute < 0 {
			bad("%s: requests_per_minute must not be negative", where)
		}
		if k.MaxConcurrent < 0 {
			bad("%s: max_concurrent must not be negative", where)
		}
	}

	var oa *OAuth
	if o.OAuth != nil {
		c := *o.OAuth
		oa = &c
		c.RequiredScopes = slices.Clone(c.RequiredScopes)
		c.AuthorizationServers = slices.Clone(c.AuthorizationServers)
		if strings.TrimSpace(c.Issuer) == "" {
			bad("auth.oauth.issuer is empty: set it to the exact iss of your authorization server's tokens, e.g. https://login.example.com/")
		}
		if c.Resource == "" {
			bad("auth.oauth.resource is empty: set it to this server's public MCP URL, e.g. https://ads.example.com/mcp")
		} else if err := checkResource(c.Resource); err != nil {
			bad("auth.oauth.resource %q: %v", c.Resource, err)
		}
		if c.Audience == "" {
			c.Audience = c.Resource
		}
		if c.Audience == "" {
			bad("auth.oauth.audience is empty: set it (or auth.oauth.resource) to the aud your authorization server puts in tokens for adsmcp")
		}
		if c.JWKSURL == "" {
			bad("auth.oauth.jwks_url is empty: set it to the issuer's JWKS, e.g. https://login.example.com/.well-known/jwks.json (see its /.well-known/openid-configuration, jwks_uri)")
		} else if err := checkJWKSURL(c.JWKSURL); err != nil {
			bad("auth.oauth.jwks_url %q: %v", c.JWKSURL, err)
		}
		for i, s := range c.RequiredScopes {
			if s == "" || strings.ContainsAny(s, " \t\"\\") {
				bad("auth.oauth.scopes[%d] %q is not a scope: one word without spaces or quotes, e.g. ads:read", i, s)
			}
		}
		if c.TenantClaim == "" {
			c.TenantClaim = DefaultTenantClaim
		}
		switch {
		case c.Leeway < 0:
			bad("auth.oauth.leeway must not be negative (e.g. 30s)")
		case c.Leeway == 0:
			c.Leeway = DefaultLeeway
		case c.Leeway > 5*time.Minute:
			bad("auth.oauth.leeway %s is too long: clock skew is seconds, use at most 5m", c.Leeway)
		}
		switch {
		case c.RefreshInterval < 0:
			bad("auth.oauth: the JWKS refresh interval must not be negative (e.g. 10m)")
		case c.RefreshInterval == 0:
			c.RefreshInterval = DefaultRefreshInterval
		case c.RefreshInterval < time.Second:
			bad("auth.oauth: the JWKS refresh interval %s is too short: use at least 1s (default 10m)", c.RefreshInterval)
		}
		switch {
		case c.MaxTokenLifetime < 0:
			bad("auth.oauth.max_token_lifetime must not be negative (e.g. 24h)")
		case c.MaxTokenLifetime == 0:
			c.MaxTokenLifetime = DefaultMaxTokenLifetime
		case c.MaxTokenLifetime > maxMaxTokenLifetime:
			bad("auth.oauth.max_token_lifetime %s is too long: a stolen token is good for that long; use at most 720h (30 days), default 24h", c.MaxTokenLifetime)
		}
		if len(c.AuthorizationServers) == 0 && c.Issuer != "" {
			c.AuthorizationServers = []string{c.Issuer}
		}
		for i, s := range c.AuthorizationServers {
			if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				bad("auth.oauth.authorization_servers[%d] %q is not an http(s) URL", i, s)
			}
		}
		if c.HTTPClient == nil {
			c.HTTPClient = &http.Client{Timeout: jwksTimeout}
		}
	}

	if len(o.APIKeys) == 0 && o.OAuth == nil {
		bad("auth: no api_keys and no oauth: add a key (run adsmcp keygen) or configure auth.oauth")
	}
	return oa, errors.Join(errs...)
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

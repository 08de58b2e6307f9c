package auth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// validate checks o and fills the OAuth defaults, naming each setting by its
// place in the configuration file (auth.…). It reports every problem at once.
func (o *Options) validate() (*OAuth, error) {
	var p problems
	for name, t := range o.Tenants {
		p.tenant(name, t)
	}
	p.apiKeys(o.APIKeys, o.Tenants)
	var oa *OAuth
	if o.OAuth != nil {
		oa = p.oauth(*o.OAuth)
	}
	if len(o.APIKeys) == 0 && o.OAuth == nil {
		p.add("auth: no api_keys and no oauth: add a key (run adsmcp keygen) or configure auth.oauth")
	}
	return oa, errors.Join(p...)
}

// problems collects what is wrong with the options, so that one start
// reports every mistake in the file instead of one per try.
type problems []error

func (p *problems) add(format string, args ...any) {
	*p = append(*p, fmt.Errorf(format, args...))
}

// tenant checks tenants.<name>: its accounts and platforms.
func (p *problems) tenant(name string, t Tenant) {
	where := fmt.Sprintf("tenants.%s", name)
	if strings.TrimSpace(name) == "" {
		p.add("tenants: a tenant has an empty name; name it, e.g. acme:")
	}
	if len(t.Accounts) == 0 {
		p.add(`%s.accounts is empty: list the account IDs this tenant may query, or "*" for all`, where)
	}
	for i, a := range t.Accounts {
		p.tenantAccount(where, i, a, t.Platforms)
	}
	for i, pl := range t.Platforms {
		if !slices.Contains(catalog.AllPlatforms, pl) {
			p.add("%s.platforms[%d] %q is not a platform: use %s", where, i, pl, strings.Join(catalog.AllPlatforms, ", "))
		}
	}
}

// tenantAccount checks entry i, a, of a tenant's accounts: an account ID
// whose platform is known and among the tenant's platforms, or "*".
func (p *problems) tenantAccount(where string, i int, a string, platforms []string) {
	if strings.TrimSpace(a) == "" {
		p.add("%s.accounts[%d] is empty: write an account ID such as act_1015… or 123-456-7890", where, i)
		return
	}
	if a == "*" {
		return
	}
	ref, err := readAccount(a, platforms)
	switch {
	case err != nil:
		p.add("%s.accounts[%d] %q %v", where, i, a, err)
	case len(platforms) > 0 && !slices.Contains(platforms, ref.platform):
		p.add("%s.accounts[%d] %q is a %s account, but %s.platforms (%s) leaves it out: add %s there or remove the account",
			where, i, a, ref.platform, where, strings.Join(platforms, ", "), ref.platform)
	}
}

// apiKeys checks auth.api_keys: each key on its own, and that no two share
// an id or a hash.
func (p *problems) apiKeys(keys []APIKey, tenants map[string]Tenant) {
	ids := map[string]int{}
	hashes := map[string]int{}
	for i, k := range keys {
		where := fmt.Sprintf("auth.api_keys[%d]", i)
		if k.ID != "" {
			where = fmt.Sprintf("auth.api_keys[%d] (id %s)", i, k.ID)
		}
		p.apiKeyID(where, i, k.ID, ids)
		p.apiKeyHash(where, i, k.SHA256, hashes)
		p.apiKeyLimits(where, k, tenants)
	}
}

// apiKeyID checks key i's id, which logs name it; seen holds the ids of the
// keys before it.
func (p *problems) apiKeyID(where string, i int, id string, seen map[string]int) {
	switch {
	case id == "":
		p.add("%s: id is empty: name the key (it appears in logs), e.g. id: ci-bot", where)
	case strings.ContainsAny(id, " \t\r\n"):
		p.add("%s: id must not contain spaces", where)
	default:
		if j, dup := seen[id]; dup {
			p.add("%s: id is also the id of auth.api_keys[%d]; ids must be unique", where, j)
		}
		seen[id] = i
	}
}

// apiKeyHash checks key i's sha256; seen holds the hashes of the keys before
// it.
func (p *problems) apiKeyHash(where string, i int, sha256 string, seen map[string]int) {
	h := strings.ToLower(strings.TrimSpace(sha256))
	if !isHexHash(h) {
		p.add("%s: sha256 must be the 64 hex characters adsmcp keygen prints (the SHA-256 of the key, not the key itself)", where)
		return
	}
	if j, dup := seen[h]; dup {
		p.add("%s: sha256 is also the hash of auth.api_keys[%d]; the same key is listed twice", where, j)
	}
	seen[h] = i
}

// apiKeyLimits checks what a key is allowed: its tenant, budget and rates.
func (p *problems) apiKeyLimits(where string, k APIKey, tenants map[string]Tenant) {
	if k.Tenant == "" {
		p.add("%s: tenant is empty: name one of tenants:", where)
	} else if _, ok := tenants[k.Tenant]; !ok {
		p.add("%s: tenant %q is not defined: add it under tenants: (with its accounts) or fix the name", where, k.Tenant)
	}
	if k.Budget != 0 && (k.Budget < minBudget || k.Budget > maxBudget) {
		p.add("%s: budget %d is out of range: use %d–%d tokens, or leave it out for the client's default", where, k.Budget, minBudget, maxBudget)
	}
	if k.RequestsPerMinute < 0 {
		p.add("%s: requests_per_minute must not be negative", where)
	}
	if k.MaxConcurrent < 0 {
		p.add("%s: max_concurrent must not be negative", where)
	}
}

// oauth checks auth.oauth and returns it with its defaults filled (a copy:
// the caller's options are not changed).
func (p *problems) oauth(c OAuth) *OAuth {
	c.RequiredScopes = slices.Clone(c.RequiredScopes)
	c.AuthorizationServers = slices.Clone(c.AuthorizationServers)
	p.oauthTokens(&c)
	p.oauthDurations(&c)
	p.oauthServers(&c)
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: jwksTimeout}
	}
	return &c
}

// oauthTokens checks what a token must carry to be accepted (issuer,
// audience, scopes) and where its keys come from.
func (p *problems) oauthTokens(c *OAuth) {
	if strings.TrimSpace(c.Issuer) == "" {
		p.add("auth.oauth.issuer is empty: set it to the exact iss of your authorization server's tokens, e.g. https://login.example.com/")
	}
	if c.Resource == "" {
		p.add("auth.oauth.resource is empty: set it to this server's public MCP URL, e.g. https://ads.example.com/mcp")
	} else if err := checkResource(c.Resource); err != nil {
		p.add("auth.oauth.resource %q: %v", c.Resource, err)
	}
	if c.Audience == "" {
		c.Audience = c.Resource
	}
	if c.Audience == "" {
		p.add("auth.oauth.audience is empty: set it (or auth.oauth.resource) to the aud your authorization server puts in tokens for adsmcp")
	}
	if c.JWKSURL == "" {
		p.add("auth.oauth.jwks_url is empty: set it to the issuer's JWKS, e.g. https://login.example.com/.well-known/jwks.json (see its /.well-known/openid-configuration, jwks_uri)")
	} else if err := checkJWKSURL(c.JWKSURL); err != nil {
		p.add("auth.oauth.jwks_url %q: %v", c.JWKSURL, err)
	}
	for i, s := range c.RequiredScopes {
		if s == "" || strings.ContainsAny(s, " \t\"\\") {
			p.add("auth.oauth.scopes[%d] %q is not a scope: one word without spaces or quotes, e.g. ads:read", i, s)
		}
	}
	if c.TenantClaim == "" {
		c.TenantClaim = DefaultTenantClaim
	}
}

// oauthDurations checks the clock leeway, the JWKS refresh interval and the
// longest token lifetime accepted, filling their defaults.
func (p *problems) oauthDurations(c *OAuth) {
	p.duration(&c.Leeway, DefaultLeeway, "auth.oauth.leeway must not be negative (e.g. 30s)", func(d time.Duration) string {
		if d > 5*time.Minute {
			return fmt.Sprintf("auth.oauth.leeway %s is too long: clock skew is seconds, use at most 5m", d)
		}
		return ""
	})
	p.duration(&c.RefreshInterval, DefaultRefreshInterval, "auth.oauth: the JWKS refresh interval must not be negative (e.g. 10m)", func(d time.Duration) string {
		if d < time.Second {
			return fmt.Sprintf("auth.oauth: the JWKS refresh interval %s is too short: use at least 1s (default 10m)", d)
		}
		return ""
	})
	p.duration(&c.MaxTokenLifetime, DefaultMaxTokenLifetime, "auth.oauth.max_token_lifetime must not be negative (e.g. 24h)", func(d time.Duration) string {
		if d > maxMaxTokenLifetime {
			return fmt.Sprintf("auth.oauth.max_token_lifetime %s is too long: a stolen token is good for that long; use at most 720h (30 days), default 24h", d)
		}
		return ""
	})
}

// duration checks a duration setting: negative is refused with the message
// negative, zero becomes def, and any other value is refused when
// outOfRange says why.
func (p *problems) duration(d *time.Duration, def time.Duration, negative string, outOfRange func(time.Duration) string) {
	switch {
	case *d < 0:
		p.add("%s", negative)
	case *d == 0:
		*d = def
	default:
		if why := outOfRange(*d); why != "" {
			p.add("%s", why)
		}
	}
}

// oauthServers checks the issuers clients may get tokens from, which the
// Protected Resource Metadata announces (the issuer when none are given).
func (p *problems) oauthServers(c *OAuth) {
	if len(c.AuthorizationServers) == 0 && c.Issuer != "" {
		c.AuthorizationServers = []string{c.Issuer}
	}
	for i, s := range c.AuthorizationServers {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			p.add("auth.oauth.authorization_servers[%d] %q is not an http(s) URL", i, s)
		}
	}
}

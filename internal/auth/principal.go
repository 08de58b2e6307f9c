// Package auth decides who is calling a remote adsmcp and what they may see:
// API keys (stored hashed in the config) and OAuth 2.1 bearer tokens (JWTs
// checked against the issuer's JWKS) both become a Principal — a tenant, the
// accounts and platforms it may query, and its token budget. The MCP layer
// scopes every answer to the principal; stdio serves the local user, who is
// not a principal.
package auth

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Principal is an authenticated caller.
type Principal struct {
	// ID names the caller in logs and metrics, and owns its sessions and
	// rate bucket: "key:<id>", "jwt:<sub>" or "jwt-client:<client_id>" (the
	// token's subject escaped, so that two subjects are two IDs; see
	// subjectID). Never a secret.
	ID string
	// Tenant is the organization whose accounts the caller sees.
	Tenant string
	// Accounts the tenant may query, as the configuration writes them
	// ("act_1015…", "617-204-8851", "tiktok_ads:7201…"; see account.go);
	// AllAccounts lifts the list.
	Accounts    []string
	AllAccounts bool
	// Platforms, when not empty, further restrict the accounts to these.
	Platforms []string
	// Client is the budget profile to apply (a client name such as claude-ai);
	// empty means the MCP client's own name.
	Client string
	// Budget, when positive, is the token budget for this caller.
	Budget int
	// RequestsPerMinute and MaxConcurrent override the server's per-principal
	// limits when positive.
	RequestsPerMinute int
	MaxConcurrent     int
}

// Allows reports whether the principal may see account a: same platform and
// same ID (see account.go). IDs compare as people write them (ads.FoldID):
// "act_1015…" and "meta_ads:1015…" are the same Meta account, and never the
// TikTok advertiser 1015…. An entry that does not say its platform allows
// nothing (New refuses such a configuration).
func (p *Principal) Allows(a ads.Account) bool {
	if p == nil {
		return true
	}
	if len(p.Platforms) > 0 && !slices.Contains(p.Platforms, a.Platform) {
		return false
	}
	if p.AllAccounts {
		return true
	}
	return slices.ContainsFunc(p.Accounts, func(x string) bool {
		ref, err := readAccount(x, p.Platforms)
		return err == nil && ref.matches(a)
	})
}

// Filter keeps the accounts the principal may see (all of them for nil).
func (p *Principal) Filter(accounts []ads.Account) []ads.Account {
	if p == nil {
		return accounts
	}
	out := make([]ads.Account, 0, len(accounts))
	for _, a := range accounts {
		if p.Allows(a) {
			out = append(out, a)
		}
	}
	return out
}

// principalKey is where a Principal sits in auth.TokenInfo.Extra.
const principalKey = "adsmcp/principal"

// TokenInfo wraps p for the go-sdk's bearer-token middleware, which hands it
// to every MCP request of the HTTP request (req.Extra.TokenInfo).
func (p *Principal) TokenInfo() *auth.TokenInfo {
	return &auth.TokenInfo{UserID: p.ID, Extra: map[string]any{principalKey: p}}
}

// FromTokenInfo is the principal a TokenInfo carries, or nil.
func FromTokenInfo(ti *auth.TokenInfo) *Principal {
	if ti == nil {
		return nil
	}
	p, _ := ti.Extra[principalKey].(*Principal)
	return p
}

type ctxKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext is the principal in ctx (set by WithPrincipal, or by the
// go-sdk's bearer middleware through auth.TokenInfoFromContext), or nil.
func FromContext(ctx context.Context) *Principal {
	if p, ok := ctx.Value(ctxKey{}).(*Principal); ok {
		return p
	}
	return FromTokenInfo(auth.TokenInfoFromContext(ctx))
}

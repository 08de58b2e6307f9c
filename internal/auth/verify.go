package auth

import (
	"context"
	"errors"
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// refusal is why a credential was refused: a short reason a caller may read
// (it names no secret, no key and nothing of the configuration). It wraps
// sdkauth.ErrInvalidToken, so the go-sdk answers 401.
type refusal struct{ reason string }

func (e *refusal) Error() string { return sdkauth.ErrInvalidToken.Error() + ": " + e.reason }
func (e *refusal) Unwrap() error { return sdkauth.ErrInvalidToken }

// The reasons.
var (
	errUnknownKey      = &refusal{"unknown API key"}
	errRevokedKey      = &refusal{"revoked API key"}
	errMalformed       = &refusal{"malformed token"}
	errAlgorithm       = &refusal{"unsupported signing algorithm"}
	errUnknownSigner   = &refusal{"unknown signing key"}
	errSignature       = &refusal{"invalid signature"}
	errExpired         = &refusal{"token expired"}
	errNotYetValid     = &refusal{"token not yet valid"}
	errIssuedFuture    = &refusal{"token issued in the future"}
	errNoExpiry        = &refusal{"token has no expiry"}
	errAudience        = &refusal{"wrong audience"}
	errIssuer          = &refusal{"wrong issuer"}
	errNoSubject       = &refusal{"token has no subject"}
	errNoTenant        = &refusal{"token names no tenant"}
	errTenantSpaces    = &refusal{"tenant claim has surrounding spaces"}
	errSubjectTooLong  = &refusal{"subject too long"}
	errLifetime        = &refusal{"token lifetime too long"}
	errUnknownTenant   = &refusal{"unknown tenant"}
	errInvalid         = &refusal{"invalid token"}
	errInsufficientScp = &refusal{"insufficient scope"}
)

// errKeysUnavailable means no signing key could be had from the JWKS URL: the
// token may be fine, so it is not an ErrInvalidToken (the middleware answers
// 503, not 401).
var errKeysUnavailable = errors.New("authorization server signing keys unavailable")

// errBadHash is a key hash New would have refused.
var errBadHash = errors.New("auth: bad key hash")

// maxTokenLen bounds a bearer token: JWTs of real issuers are a few
// kilobytes; longer ones are refused before any parsing.
const maxTokenLen = 16 << 10

// Verify is a go-sdk TokenVerifier: an API key (KeyPrefix…) or, with OAuth
// configured, a JWT access token becomes the principal's TokenInfo
// (Principal.TokenInfo, with the token's scopes and expiry). Errors wrap
// sdkauth.ErrInvalidToken with a short reason ("unknown API key", "token
// expired", "wrong audience"…) and never contain the token; only a JWKS that
// cannot be fetched gives another error.
//
// Verify does not check OAuth.RequiredScopes: Middleware does, so that a
// missing scope is 403 insufficient_scope rather than 401. API keys carry
// every required scope.
func (a *Authenticator) Verify(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
	ti, p, err := a.verify(ctx, token)
	if v := verdictFrom(ctx); v != nil {
		v.called, v.err = true, err
	}
	remote := ""
	if r != nil {
		remote = r.RemoteAddr
	}
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			a.log.DebugContext(ctx, "credential refused", "reason", ref.reason, "remote", remote)
		} else {
			a.log.WarnContext(ctx, "cannot check a bearer token", "err", err, "remote", remote)
		}
		return nil, err
	}
	a.log.DebugContext(ctx, "authenticated", "principal", p.ID, "tenant", p.Tenant, "remote", remote)
	return ti, nil
}

func (a *Authenticator) verify(ctx context.Context, token string) (*sdkauth.TokenInfo, *Principal, error) {
	if token == "" || len(token) > maxTokenLen {
		return nil, nil, errMalformed
	}
	if isAPIKey(token) {
		p, err := a.verifyKey(token)
		if err != nil {
			return nil, nil, err
		}
		ti := p.TokenInfo()
		if a.oauth != nil {
			ti.Scopes = append([]string(nil), a.oauth.RequiredScopes...)
		}
		return ti, p, nil
	}
	if a.jwt == nil {
		return nil, nil, errUnknownKey
	}
	c, err := a.jwt.verify(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	p, ok := a.principal(c.principal, c.tenant)
	if !ok {
		return nil, nil, errUnknownTenant
	}
	p.Client = c.client
	ti := p.TokenInfo()
	ti.Scopes = c.scopes
	ti.Expiration = c.expiry
	return ti, p, nil
}

// verdict carries Verify's outcome from inside the go-sdk middleware back
// to Middleware, which words the refusal.
type verdict struct {
	called bool // Verify ran: a bearer token was sent
	err    error
}

type verdictKey struct{}

func verdictFrom(ctx context.Context) *verdict {
	v, _ := ctx.Value(verdictKey{}).(*verdict)
	return v
}

package auth

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// signingAlgs are the JWS algorithms accepted: asymmetric only. "none" and
// the HMAC family (HS*) are refused outright — with a public JWKS, HS256
// "signed" with the public key is the classic forgery.
var signingAlgs = []string{
	"RS256", "RS384", "RS512",
	"PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512",
	"EdDSA",
}

// minRSABits refuses RSA signing keys too short to trust.
const minRSABits = 2048

// jwtVerifier checks JWT access tokens against the issuer's JWKS.
type jwtVerifier struct {
	o      *OAuth
	log    *slog.Logger
	keys   keyfunc.Keyfunc
	parser *jwt.Parser
}

func newJWTVerifier(ctx context.Context, o *OAuth, log *slog.Logger) (*jwtVerifier, error) {
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{o.JWKSURL}, keyfunc.Override{
		Client:           o.HTTPClient,
		HTTPTimeout:      jwksTimeout,
		RefreshInterval:  o.RefreshInterval,
		RateLimitWaitMax: jwksTimeout,
		// One fetch for an unknown kid at most every MinUnknownKeyRefresh: a
		// rotated key is picked up at once, and tokens with made-up kids
		// cannot hammer the authorization server. A request that would have
		// to wait longer than RateLimitWaitMax for its turn is refused at once.
		RefreshUnknownKID: rate.NewLimiter(rate.Every(MinUnknownKeyRefresh), 1),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				log.WarnContext(ctx, "cannot fetch the OAuth signing keys (JWKS)", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("auth.oauth.jwks_url: %w", err)
	}
	return &jwtVerifier{
		o:    o,
		log:  log,
		keys: kf,
		parser: jwt.NewParser(
			jwt.WithValidMethods(signingAlgs),
			jwt.WithIssuer(o.Issuer),
			jwt.WithAudience(o.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(o.Leeway),
		),
	}, nil
}

// jwtClaims is what adsmcp takes from a valid token.
type jwtClaims struct {
	principal, tenant, client string
	scopes                    []string
	expiry                    time.Time
}

// joseHeader is the part of a token's header checked before parsing.
type joseHeader struct {
	Alg  string          `json:"alg"`
	Crit json.RawMessage `json:"crit"`
}

func (v *jwtVerifier) verify(ctx context.Context, token string) (*jwtClaims, error) {
	if err := checkHeader(token); err != nil {
		return nil, err
	}
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, v.keyfunc(ctx))
	if err != nil {
		return nil, v.reason(err, claims)
	}
	principal, ok, err := subjectID(claims)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, errNoSubject
	}
	tenant, err := tenantOf(claims[v.o.TenantClaim])
	if err != nil {
		return nil, err
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return nil, errNoExpiry
	}
	if err := v.checkLifetime(claims, exp.Time); err != nil {
		return nil, err
	}
	c := &jwtClaims{principal: principal, tenant: tenant, scopes: scopesOf(claims), expiry: exp.Time}
	if v.o.ClientClaim != "" {
		c.client = strings.TrimSpace(claimString(claims[v.o.ClientClaim]))
	}
	return c, nil
}

// checkHeader refuses what the parser would accept or report vaguely: an
// algorithm adsmcp does not take, and critical extensions it cannot honour
// (RFC 7515 §4.1.11).
func checkHeader(token string) error {
	head, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return errMalformed
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil {
		return errMalformed
	}
	var h joseHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		return errMalformed
	}
	if !slices.Contains(signingAlgs, h.Alg) {
		return errAlgorithm
	}
	if len(h.Crit) > 0 && string(h.Crit) != "null" {
		return errMalformed
	}
	return nil
}

// keyfunc finds the token's key in the JWKS (by kid; every key when the
// token has none), fetching the set again for an unknown kid.
func (v *jwtVerifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	inner := v.keys.KeyfuncCtx(ctx)
	return func(t *jwt.Token) (any, error) {
		key, err := inner(t)
		if err != nil {
			if v.noKeys(ctx) {
				return nil, errKeysUnavailable
			}
			return nil, errUnknownSigner
		}
		if set, ok := key.(jwt.VerificationKeySet); ok {
			set.Keys = slices.DeleteFunc(set.Keys, weakKey)
			if len(set.Keys) == 0 {
				if v.noKeys(ctx) {
					return nil, errKeysUnavailable
				}
				return nil, errUnknownSigner
			}
			return set, nil
		}
		if weakKey(key) {
			return nil, errUnknownSigner
		}
		return key, nil
	}
}

// noKeys reports whether the JWKS has never been had (or is empty).
func (v *jwtVerifier) noKeys(ctx context.Context) bool {
	all, err := v.keys.Storage().KeyReadAll(ctx)
	return err != nil || len(all) == 0
}

func weakKey(k jwt.VerificationKey) bool {
	rk, ok := k.(*rsa.PublicKey)
	return ok && rk.N.BitLen() < minRSABits
}

// reason turns the parser's error into a refusal. Claims problems are
// reported issuer first, then audience, then time, whatever else is wrong.
func (v *jwtVerifier) reason(err error, claims jwt.MapClaims) error {
	for _, e := range []error{errKeysUnavailable, errUnknownSigner, errAlgorithm} {
		if errors.Is(err, e) {
			return e
		}
	}
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return errMalformed
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return errSignature
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return errIssuer
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return errAudience
	}
	if errors.Is(err, jwt.ErrTokenRequiredClaimMissing) {
		// The signature is good; name the missing claim.
		switch {
		case claims["iss"] == nil || claims["iss"] == "":
			return errIssuer
		case claims["aud"] == nil || claims["aud"] == "":
			return errAudience
		case claims["exp"] == nil:
			return errNoExpiry
		}
	}
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return errExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return errNotYetValid
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return errIssuedFuture
	}
	return errInvalid
}

// scopesOf reads "scope" (space-separated, RFC 9068) or "scp" (a string or a
// list, as Okta and Entra ID write it).
func scopesOf(c jwt.MapClaims) []string {
	var out []string
	for _, name := range []string{"scope", "scp"} {
		switch s := c[name].(type) {
		case string:
			out = append(out, strings.Fields(s)...)
		case []any:
			for _, x := range s {
				if str, ok := x.(string); ok {
					out = append(out, strings.Fields(str)...)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// claimString is a string claim, or the only string of a one-element list,
// as written.
func claimString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		if len(s) == 1 {
			str, _ := s[0].(string)
			return str
		}
	}
	return ""
}

// tenantOf reads the tenant claim, as written: a tenant name with
// surrounding spaces is not the name, and trimming it would let an issuer's
// sloppy (or attacker-influenced) claim select a tenant it does not spell.
func tenantOf(v any) (string, error) {
	s := claimString(v)
	switch {
	case strings.TrimSpace(s) == "":
		return "", errNoTenant
	case strings.TrimSpace(s) != s:
		return "", errTenantSpaces
	}
	return s, nil
}

// checkLifetime refuses a token valid for longer than MaxTokenLifetime: from
// iat to exp, or from now when it has no iat. The parser checked that exp is
// not past and iat not in the future; this bounds how long a stolen token
// stays good (an exp of 10^18 would be forever).
func (v *jwtVerifier) checkLifetime(claims jwt.MapClaims, exp time.Time) error {
	from := time.Now()
	if iat, err := claims.GetIssuedAt(); err == nil && iat != nil {
		from = iat.Time
	}
	if exp.Sub(from) > v.o.MaxTokenLifetime+v.o.Leeway {
		return errLifetime
	}
	return nil
}

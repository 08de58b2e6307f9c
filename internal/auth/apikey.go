package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"math/big"
	"strings"
)

// KeyPrefix starts every API key adsmcp makes, so a key is recognized (and
// told apart from a JWT) without a lookup, and secret scanners can find
// leaked ones.
const KeyPrefix = "adsmcp_"

// keyChars is the key alphabet (base62: no characters a shell, URL or YAML
// would mangle); keyLen characters carry at least 256 random bits.
const (
	keyChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyLen   = 43
)

// HashKey is what the configuration stores for key: the lower-case hex of
// its SHA-256. The key has 256 random bits, so a fast hash is enough: there
// is nothing to brute-force.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewKey makes a random API key (KeyPrefix and 43 base62 characters) and its
// hash for the configuration.
func NewKey() (key, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	n := new(big.Int).SetBytes(b[:])
	base := big.NewInt(int64(len(keyChars)))
	digits := make([]byte, keyLen)
	mod := new(big.Int)
	for i := keyLen - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		digits[i] = keyChars[mod.Int64()]
	}
	key = KeyPrefix + string(digits)
	return key, HashKey(key), nil
}

// isAPIKey tells API keys from other bearer tokens.
func isAPIKey(token string) bool { return strings.HasPrefix(token, KeyPrefix) }

// storedKey is a configured key with its hash decoded.
type storedKey struct {
	hash [sha256.Size]byte
	APIKey
}

func newStoredKey(k APIKey) (storedKey, error) {
	s := storedKey{APIKey: k}
	b, err := hex.DecodeString(strings.ToLower(strings.TrimSpace(k.SHA256)))
	if err != nil || len(b) != sha256.Size {
		return s, errBadHash
	}
	copy(s.hash[:], b)
	return s, nil
}

// lookupKey finds the configured key whose hash is the token's. Every key
// is compared, in constant time, whatever matches.
func (a *Authenticator) lookupKey(token string) *storedKey {
	sum := sha256.Sum256([]byte(token))
	var found *storedKey
	for i := range a.keys {
		if subtle.ConstantTimeCompare(sum[:], a.keys[i].hash[:]) == 1 {
			found = &a.keys[i]
		}
	}
	return found
}

// verifyKey authenticates an API key.
func (a *Authenticator) verifyKey(token string) (*Principal, error) {
	k := a.lookupKey(token)
	if k == nil {
		return nil, errUnknownKey
	}
	if k.Revoked {
		return nil, errRevokedKey
	}
	p, ok := a.principal("key:"+k.ID, k.Tenant)
	if !ok {
		return nil, errUnknownTenant // New checked; only if tenants changed under us
	}
	p.Client, p.Budget = k.Client, k.Budget
	p.RequestsPerMinute, p.MaxConcurrent = k.RequestsPerMinute, k.MaxConcurrent
	return p, nil
}

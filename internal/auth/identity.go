package auth

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
)

// maxSubjectLen bounds a token's subject: OpenID Connect Core §2 caps "sub" at
// 255 ASCII characters. Longer subjects are refused rather than cut, since a
// cut would make two subjects one principal.
const maxSubjectLen = 255

// subjectID is the principal ID of a token: "jwt:<sub>", or
// "jwt-client:<client_id>" for a token with no sub (client credentials;
// client_id per RFC 9068, azp per OpenID Connect — both name the client), so a
// client and a user of the same name are two principals. ok is false when the
// token names nobody; err when the subject is too long.
//
// The principal owns sessions (the go-sdk refuses a session to any other
// TokenInfo.UserID) and a rate bucket, so the encoding must be injective: the
// subject is kept as written, except that '%', spaces, control and other
// unprintable characters, and bytes that are not UTF-8 are percent-encoded
// (escapeID). The ID is then printable and one word in a log line, and "x y",
// "x_y" and "x%20y" stay three principals.
func subjectID(c jwt.MapClaims) (id string, ok bool, err error) {
	prefix := "jwt:"
	sub := nonBlank(c, "sub")
	if sub == "" {
		prefix = "jwt-client:"
		if sub = nonBlank(c, "client_id"); sub == "" {
			sub = nonBlank(c, "azp")
		}
	}
	if sub == "" {
		return "", false, nil
	}
	if len(sub) > maxSubjectLen {
		return "", true, errSubjectTooLong
	}
	return prefix + escapeID(sub), true, nil
}

// nonBlank is string claim name, or "" when it is absent, not a string or
// only spaces.
func nonBlank(c jwt.MapClaims, name string) string {
	s, _ := c[name].(string)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// escapeID percent-encodes, byte by byte, every character of s that is '%',
// a space or unprintable, and every byte that is not UTF-8; the rest is kept.
// Since '%' itself is encoded, two strings never escape to the same ID.
func escapeID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '%' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

package catalog

import "strings"

// AccountIDForm is how a platform writes its account IDs: the same digits
// can be a Meta, a Google Ads and a TikTok account, so an ID in a platform's
// own form is the only way a bare ID says its platform.
type AccountIDForm struct {
	// Example is an ID in the form ("act_1234567890").
	Example string
	// Is reports whether s is written in the form.
	Is func(s string) bool
	// Normalize writes an ID of the platform in the form, as its API (and
	// the demo data) does, when s is one ("ACT_1015", "6172048851"); other
	// strings come back as they are.
	Normalize func(s string) string
}

// metaAccountID: act_ and digits.
var metaAccountID = AccountIDForm{
	Example: "act_1234567890",
	Is:      func(s string) bool { return len(s) > 4 && strings.EqualFold(s[:4], "act_") },
	Normalize: func(s string) string {
		digits := strings.TrimPrefix(strings.ToLower(s), "act_")
		if allDigits(digits) && digits != "" {
			return "act_" + digits
		}
		return s
	},
}

// googleAccountID: ten digits as 123-456-7890.
var googleAccountID = AccountIDForm{
	Example: "123-456-7890",
	Is: func(s string) bool {
		if len(s) != 12 || s[3] != '-' || s[7] != '-' {
			return false
		}
		return allDigits(s[:3] + s[4:7] + s[8:])
	},
	Normalize: func(s string) string {
		digits := strings.ReplaceAll(s, "-", "")
		if len(digits) == 10 && allDigits(digits) {
			return digits[:3] + "-" + digits[3:6] + "-" + digits[6:]
		}
		return s
	},
}

// PlatformOfAccountID is the platform whose own form s is written in, if any.
func PlatformOfAccountID(s string) (string, bool) {
	for _, p := range platforms {
		if p.AccountID != nil && p.AccountID.Is(s) {
			return p.Name, true
		}
	}
	return "", false
}

// NormalizeAccountID writes id as platform writes its account IDs (trimmed;
// unchanged for a platform without a form of its own, or an id not of it).
func NormalizeAccountID(id, platform string) string {
	id = strings.TrimSpace(id)
	if p, ok := PlatformByName(platform); ok && p.AccountID != nil {
		return p.AccountID.Normalize(id)
	}
	return id
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

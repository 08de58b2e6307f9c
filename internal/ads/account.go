// Package ads holds the domain types every part of adsmcp shares: the ad accounts a
// caller may query. It depends on nothing else in adsmcp.
package ads

import (
	"strings"
	"unicode"
)

// Account is one ad account on one platform.
type Account struct {
	AccountID   string `json:"account_id"`
	Platform    string `json:"platform"`
	AccountName string `json:"account_name"`
	// Currency is the ISO 4217 code all of the account's money is in.
	Currency string `json:"currency"`
	// Timezone is the IANA zone the account's days are counted in.
	Timezone string `json:"timezone"`
	Status   string `json:"status"`
	// AttributionWindow is the window the account's conversions are counted
	// under (catalog.AttributionWindows: "7d_click_1d_view"), or
	// catalog.PerActionWindow where each conversion action has its own (Google);
	// "" when the source does not say.
	AttributionWindow string `json:"attribution_window,omitempty"`
	// ConversionActions says which actions the conversions metric counts
	// ("purchase"); "" when the source does not say.
	ConversionActions string `json:"conversion_actions,omitempty"`
}

// FoldID folds an account ID the way people write it: Meta's "act_" prefix, Google's
// dashes ("123-456-7890") and case are ignored, so "act_1015", "1015" and
// "ACT-1015" name the same account.
func FoldID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	id = strings.TrimPrefix(id, "act_")
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, id)
}

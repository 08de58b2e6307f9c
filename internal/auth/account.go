package auth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// An account is a platform and an ID: the same digits can name a Google Ads
// customer (617-204-8851), a Meta ad account (act_6172048851) and a TikTok
// advertiser (6172048851), three different businesses. So a tenant's account
// entry must say its platform, and Principal.Allows compares both.
//
// An entry says its platform either outright, "platform:id"
// ("tiktok_ads:7201845539016472318", "meta_ads:1015…"), or by the form the
// platform writes its IDs in: "act_…" is Meta, "123-456-7890" is Google Ads.
// Bare digits say nothing; they are read as the tenant's platform when it is
// restricted to exactly one, and refused otherwise (New says how to write them).

// accountRef is a tenant's account entry, read: its platform and its ID folded
// (ads.FoldID), or ok false when the entry does not say its platform.
type accountRef struct {
	platform, id string
}

// readAccount reads entry s of a tenant restricted to platforms (none: any).
func readAccount(s string, platforms []string) (accountRef, error) {
	s = strings.TrimSpace(s)
	if p, id, ok := strings.Cut(s, ":"); ok {
		if !slices.Contains(catalog.AllPlatforms, p) {
			return accountRef{}, fmt.Errorf("names no platform before the colon: write platform:id with a platform among %s", strings.Join(catalog.AllPlatforms, ", "))
		}
		if ads.FoldID(id) == "" {
			//lint:ignore ST1005 the message ends where the user writes the ID: "has no account ID after meta_ads:"
			return accountRef{}, fmt.Errorf("has no account ID after %s:", p)
		}
		return accountRef{platform: p, id: ads.FoldID(id)}, nil
	}
	switch {
	case len(s) > 4 && strings.EqualFold(s[:4], "act_"):
		return accountRef{platform: "meta_ads", id: ads.FoldID(s)}, nil
	case isGoogleForm(s):
		return accountRef{platform: "google_ads", id: ads.FoldID(s)}, nil
	case len(platforms) == 1:
		return accountRef{platform: platforms[0], id: ads.FoldID(s)}, nil
	}
	//lint:ignore ST1005 the message ends with the YAML key to write, "platforms:"
	return accountRef{}, fmt.Errorf("does not say its platform (the same digits can be a Meta, Google Ads and TikTok account): "+
		"write it as tiktok_ads:%[1]s, meta_ads:%[1]s or google_ads:%[1]s (act_%[1]s is Meta, 123-456-7890 is Google Ads), "+
		"or restrict the tenant to one platform with platforms:", s)
}

// isGoogleForm reports whether s is written as Google Ads writes customer IDs:
// 123-456-7890.
func isGoogleForm(s string) bool {
	if len(s) != 12 || s[3] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range []byte(s) {
		if i != 3 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// matches reports whether the entry names account a.
func (r accountRef) matches(a ads.Account) bool {
	return r.platform == a.Platform && r.id == ads.FoldID(a.AccountID)
}

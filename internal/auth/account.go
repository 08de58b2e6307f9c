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
	if p, ok := catalog.PlatformOfAccountID(s); ok {
		return accountRef{platform: p, id: ads.FoldID(s)}, nil
	}
	if len(platforms) == 1 {
		return accountRef{platform: platforms[0], id: ads.FoldID(s)}, nil
	}
	return accountRef{}, unsaidPlatform(s)
}

// unsaidPlatform is the error for an entry s that does not say its platform:
// how to write it for each platform of the catalog, those whose IDs have no
// form of their own first (bare digits are most likely theirs), then each
// form ("act_6172048851 is Meta Ads").
func unsaidPlatform(s string) error {
	var names, prefixed, forms []string
	for _, p := range catalog.Platforms() {
		names = append(names, p.DisplayName)
		if p.AccountID == nil {
			prefixed = append(prefixed, p.Name+":"+s)
		}
	}
	for _, p := range catalog.Platforms() {
		if f := p.AccountID; f != nil {
			prefixed = append(prefixed, p.Name+":"+s)
			example := f.Example
			if n := f.Normalize(s); f.Is(n) {
				example = n
			}
			forms = append(forms, example+" is "+p.DisplayName)
		}
	}
	//lint:ignore ST1005 the message ends with the YAML key to write, "platforms:"
	return fmt.Errorf("does not say its platform (the same digits can be a %s account): write it as %s (%s), "+
		"or restrict the tenant to one platform with platforms:", prose(names, "and"), prose(prefixed, "or"), strings.Join(forms, ", "))
}

// prose joins words as a sentence does: "a", "a or b", "a, b or c".
func prose(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// matches reports whether the entry names account a.
func (r accountRef) matches(a ads.Account) bool {
	return r.platform == a.Platform && r.id == ads.FoldID(a.AccountID)
}

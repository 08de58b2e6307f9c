package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// platformAliases maps folded names people use for platforms to canonical ones.
var platformAliases = map[string]string{
	"meta": catalog.MetaAds, "metaads": catalog.MetaAds, "facebook": catalog.MetaAds, "fb": catalog.MetaAds,
	"facebookads": catalog.MetaAds, "instagram": catalog.MetaAds, "metamarketing": catalog.MetaAds,
	"google": catalog.GoogleAds, "googleads": catalog.GoogleAds, "adwords": catalog.GoogleAds,
	"tiktok": catalog.TikTokAds, "tiktokads": catalog.TikTokAds,
}

// canonicalPlatform maps a platform name as written to its canonical name.
func canonicalPlatform(s string) (string, bool) {
	p, ok := platformAliases[foldName(s)]
	return p, ok
}

// closestPlatforms suggests canonical platforms for a misspelling of any of their
// names ("facebok" → meta_ads).
func closestPlatforms(s string) []string {
	cands := slices.Clone(catalog.AllPlatforms)
	for alias := range platformAliases {
		cands = append(cands, alias)
	}
	slices.Sort(cands[len(catalog.AllPlatforms):])
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		p := c
		if q, ok := platformAliases[c]; ok {
			p = q
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (n *normalizer) platforms(given []string) {
	if given == nil {
		return
	}
	if len(given) == 0 {
		n.problem(Problem{Field: "platforms", Problem: "is an empty array", Valid: catalog.AllPlatforms,
			Fix: "omit platforms for all platforms, or name at least one"})
		return
	}
	for i, s := range given {
		p, ok := canonicalPlatform(s)
		if !ok {
			n.problem(Problem{Field: fmt.Sprintf("platforms[%d]", i), Value: s, Problem: "unknown platform",
				Valid: catalog.AllPlatforms, Closest: closestPlatforms(s)})
			continue
		}
		if p != s {
			n.change(Change{Type: ChangeValueNormalized, Field: "platforms", From: s, To: p,
				Detail: fmt.Sprintf("Platform %q read as %q", s, p)})
		}
		if !slices.Contains(n.q.Platforms, p) {
			n.q.Platforms = append(n.q.Platforms, p)
		}
	}
}

// accounts resolves account_ids against the caller's accounts, or takes all of
// them (on the chosen platforms) when omitted; it applies the account guardrail.
func (n *normalizer) accounts(given []string) *TooManyAccountsError {
	visible := n.opt.Accounts
	onPlatforms := func(a ads.Account) bool {
		return len(n.q.Platforms) == 0 || slices.Contains(n.q.Platforms, a.Platform)
	}
	if given == nil {
		for _, a := range visible {
			if onPlatforms(a) {
				n.q.Accounts = append(n.q.Accounts, a)
			}
		}
		switch {
		case len(n.q.Accounts) > 0:
		case len(visible) == 0:
			n.problem(Problem{Field: "account_ids", Problem: "no account is available to you",
				Fix: "connect an ad account (or check the credentials), then call list_accounts"})
		case len(n.q.Platforms) == 0:
			// Every platform given was unknown; that problem is already reported.
		default:
			n.problem(Problem{Field: "platforms", Value: strings.Join(n.q.Platforms, ","), Problem: "no account you may query is on these platforms",
				Valid: platformsOf(visible), Fix: "call list_accounts to see the accounts and their platforms"})
		}
		if len(n.q.Accounts) > n.opt.MaxAccounts {
			return &TooManyAccountsError{Max: n.opt.MaxAccounts, Requested: len(n.q.Accounts)}
		}
		return nil
	}
	if len(given) == 0 {
		n.problem(Problem{Field: "account_ids", Problem: "is an empty array",
			Fix: fmt.Sprintf("omit account_ids for every account, or name 1 to %d accounts from list_accounts", n.opt.MaxAccounts)})
		return nil
	}
	seen := map[string]bool{}
	for i, s := range given {
		field := fmt.Sprintf("account_ids[%d]", i)
		a, how, ok := findAccount(visible, s)
		if !ok {
			if same := accountsNamed(visible, s); len(same) > 1 {
				n.problem(Problem{Field: field, Value: s, Problem: fmt.Sprintf("%d accounts have this name", len(same)),
					Valid: same, Fix: "use the account_id of the one you mean"})
				continue
			}
			n.problem(Problem{Field: field, Value: s, Problem: "no account with this ID is available to you",
				Closest: closestAccounts(s, visible, 3), Fix: "use an account_id from list_accounts"})
			continue
		}
		if how != "" {
			n.change(Change{Type: ChangeValueNormalized, Field: "account_ids", From: s, To: a.AccountID,
				Detail: fmt.Sprintf("Account %q read as %q (%s)", s, a.AccountID, how)})
		}
		if !onPlatforms(a) {
			n.problem(Problem{Field: field, Value: s, Problem: fmt.Sprintf("account is on %s, which platforms excludes", a.Platform),
				Fix: "remove the account or add its platform to platforms"})
			continue
		}
		if seen[a.AccountID] {
			n.change(Change{Type: ChangeDuplicateRemoved, Field: "account_ids", From: s,
				Detail: fmt.Sprintf("Account %q given twice; queried once", a.AccountID)})
			continue
		}
		seen[a.AccountID] = true
		n.q.Accounts = append(n.q.Accounts, a)
	}
	if len(n.q.Accounts) > n.opt.MaxAccounts {
		return &TooManyAccountsError{Max: n.opt.MaxAccounts, Requested: len(n.q.Accounts), Explicit: true}
	}
	return nil
}

// findAccount finds an account by exact ID, by folded ID ("act_" prefix, dashes,
// case) or by exact name (case-insensitive); how says which forgiveness applied.
func findAccount(visible []ads.Account, s string) (ads.Account, string, bool) {
	for _, a := range visible {
		if a.AccountID == s {
			return a, "", true
		}
	}
	f := ads.FoldID(s)
	for _, a := range visible {
		if f != "" && ads.FoldID(a.AccountID) == f {
			return a, "same ID written differently", true
		}
	}
	if same := accountsNamed(visible, s); len(same) == 1 {
		for _, a := range visible {
			if a.AccountID == same[0] {
				return a, "matched the account name", true
			}
		}
	}
	return ads.Account{}, "", false
}

// accountsNamed returns the IDs of the accounts whose name is s (case-insensitive).
func accountsNamed(visible []ads.Account, s string) []string {
	var ids []string
	s = strings.TrimSpace(s)
	for _, a := range visible {
		if s != "" && strings.EqualFold(s, strings.TrimSpace(a.AccountName)) {
			ids = append(ids, a.AccountID)
		}
	}
	return ids
}

// closestAccounts returns up to n account IDs whose ID or name is closest to s.
func closestAccounts(s string, visible []ads.Account, n int) []string {
	var cands []string
	idOf := map[string]string{}
	for _, a := range visible {
		for _, c := range []string{a.AccountID, a.AccountName} {
			if _, seen := idOf[c]; !seen && c != "" {
				idOf[c] = a.AccountID
				cands = append(cands, c)
			}
		}
	}
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		if id := idOf[c]; !slices.Contains(out, id) && len(out) < n {
			out = append(out, id)
		}
	}
	return out
}

func platformsOf(accts []ads.Account) []string {
	var out []string
	for _, a := range accts {
		if !slices.Contains(out, a.Platform) {
			out = append(out, a.Platform)
		}
	}
	return out
}

// CanonicalPlatform maps a platform name as people write it ("Facebook", "google")
// to its canonical name, or explains the valid names.
func CanonicalPlatform(s string) (string, error) {
	if p, ok := canonicalPlatform(s); ok {
		return p, nil
	}
	return "", fmt.Errorf("unknown platform %q; valid: %s", s, strings.Join(catalog.AllPlatforms, ", "))
}

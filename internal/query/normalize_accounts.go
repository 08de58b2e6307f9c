package query

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// platformAliases maps the folded names and aliases of the catalog's platforms
// to their canonical names. Publisher platforms (placements) such as Instagram
// are not platforms: they are catalog.Publishers, read as a publisher_platform
// filter inside their platform. "facebook"/"fb" and "tiktok" are both: as a
// platform they mean the whole of it.
var platformAliases = func() map[string]string {
	m := map[string]string{}
	for _, p := range catalog.Platforms() {
		for _, name := range append([]string{p.Name}, p.Aliases...) {
			m[foldName(name)] = p.Name
		}
	}
	return m
}()

// platformLabel names platform p in prose ("Meta").
func platformLabel(p string) string {
	pl, _ := catalog.PlatformByName(p)
	return pl.Label
}

// canonicalPlatform maps a platform name as written to its canonical name.
func canonicalPlatform(s string) (string, bool) {
	p, ok := platformAliases[foldName(s)]
	return p, ok
}

// platformReadAs is the detail of reading s as the platform p. A name that is
// also one of p's placements ("facebook") says the answer is all of p, and how
// to ask for the placement instead.
func platformReadAs(what, s, p string) string {
	d := fmt.Sprintf("%s %q read as %q", what, s, p)
	if pub, ok := catalog.LookupPublisher(s); ok && pub.Platform == p {
		d += fmt.Sprintf(" (all %s placements, not only the %s placement; to restrict to the %s placement use filter publisher_platform EQUALS %s)",
			platformLabel(p), pub.Name, pub.Name, pub.Name)
	}
	return d
}

// closestPlatforms suggests canonical platforms and publisher platforms for a
// misspelling of any of their names ("facebok" → meta_ads, "instagarm" → instagram).
func closestPlatforms(s string) []string {
	cands := slices.Clone(catalog.AllPlatforms)
	nameOf := map[string]string{}
	for alias, p := range platformAliases {
		nameOf[alias] = p
	}
	for k, name := range catalog.PublisherKeys() {
		if _, taken := nameOf[k]; !taken {
			nameOf[k] = name
		}
	}
	keys := make([]string, 0, len(nameOf))
	for k := range nameOf {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	cands = append(cands, keys...)
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		p := c
		if q, ok := nameOf[c]; ok {
			p = q
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// closestPublishers suggests publisher platforms for a value that names none.
func closestPublishers(s string) []string {
	keys := catalog.PublisherKeys()
	cands := make([]string, 0, len(keys))
	for k := range keys {
		cands = append(cands, k)
	}
	slices.Sort(cands)
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		if name := keys[c]; !slices.Contains(out, name) && len(out) < 3 {
			out = append(out, name)
		}
	}
	return out
}

// platformValues are the values the platforms argument and a platform filter
// accept: the platforms, then the publisher platforms (placements) inside them.
func platformValues() []string {
	return append(slices.Clone(catalog.AllPlatforms), catalog.PublisherNames()...)
}

var unknownPlatformFix = "name an ad platform (" + strings.Join(catalog.AllPlatforms, ", ") + ") or a placement inside one " +
	"(instagram, youtube, …: answered as that publisher_platform within its platform)"

// placementsDetail says that the values given name placements, not platforms,
// and what is answered instead.
func placementsDetail(given []string, pubs []catalog.Publisher) string {
	var platforms []string
	for _, p := range pubs {
		if !slices.Contains(platforms, p.Platform) {
			platforms = append(platforms, p.Platform)
		}
	}
	quoted := make([]string, len(given))
	for i, g := range given {
		quoted[i] = fmt.Sprintf("%q", g)
		if len(platforms) > 1 {
			quoted[i] += " (" + pubs[i].Platform + ")"
		}
	}
	switch {
	case len(given) == 1:
		return fmt.Sprintf("%s is a placement inside %s, not an ad platform", quoted[0], platforms[0])
	case len(platforms) == 1:
		return fmt.Sprintf("%s are placements inside %s, not ad platforms", joinAnd(quoted), platforms[0])
	}
	return fmt.Sprintf("%s are placements, not ad platforms", joinAnd(quoted))
}

// publisherCondition writes the publisher_platform condition of names, as in
// "publisher_platform = instagram" or "publisher_platform IN (instagram, youtube)".
func publisherCondition(names []string) string {
	if len(names) == 1 {
		return "publisher_platform = " + names[0]
	}
	return "publisher_platform IN (" + strings.Join(names, ", ") + ")"
}

func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func jsonList(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// platforms reads the platforms argument. A whole platform is queried whole; a
// placement (Instagram, YouTube) queries its platform with a publisher_platform
// filter. Both kinds together are rejected: ["meta_ads","Instagram"] could mean
// all of Meta or only Instagram, and a placement filter would also cut any other
// platform named whole.
func (n *normalizer) platforms(given []string) {
	if given == nil {
		return
	}
	if len(given) == 0 {
		n.problem(Problem{Field: "platforms", Problem: "is an empty array", Valid: catalog.AllPlatforms,
			Fix: "omit platforms for all platforms, or name at least one"})
		return
	}
	var whole, placeGiven []string
	var pubs []catalog.Publisher
	for i, s := range given {
		if p, ok := canonicalPlatform(s); ok {
			if p != s {
				n.change(Change{Type: ChangeValueNormalized, Field: "platforms", From: s, To: p,
					Detail: platformReadAs("Platform", s, p)})
			}
			if !slices.Contains(whole, p) {
				whole = append(whole, p)
			}
			continue
		}
		if pub, ok := catalog.LookupPublisher(s); ok {
			if !slices.ContainsFunc(pubs, func(q catalog.Publisher) bool { return q.Name == pub.Name }) {
				pubs = append(pubs, pub)
				placeGiven = append(placeGiven, s)
			}
			continue
		}
		n.problem(Problem{Field: fmt.Sprintf("platforms[%d]", i), Value: s, Problem: "unknown platform",
			Valid: platformValues(), Closest: closestPlatforms(s), Fix: unknownPlatformFix})
	}
	if len(pubs) == 0 {
		n.q.Platforms = append(n.q.Platforms, whole...)
		return
	}
	var names, owners []string
	for _, p := range pubs {
		names = append(names, p.Name)
		if !slices.Contains(owners, p.Platform) {
			owners = append(owners, p.Platform)
		}
	}
	if len(whole) > 0 {
		n.problem(mixedPlatformsProblem("platforms", given, given, ""))
		return
	}
	n.q.Platforms = append(n.q.Platforms, owners...)
	op := Equals
	if len(names) > 1 {
		op = In
	}
	vals := make([]any, len(names))
	for i, s := range names {
		vals[i] = s
	}
	n.placements = &Filter{Field: "publisher_platform", Operator: op, Values: vals}
	shown := names[0]
	if op == In {
		shown = jsonList(names)
	}
	n.change(Change{Type: ChangePublisherPlatformFilter, Field: "platforms", From: strings.Join(placeGiven, ", "),
		To: fmt.Sprintf("%s with %s", strings.Join(owners, ", "), publisherCondition(names)),
		Detail: fmt.Sprintf("%s; answering for %s within %s (filter added: publisher_platform %s %s)",
			placementsDetail(placeGiven, pubs), publisherCondition(names), strings.Join(owners, ", "), op, shown)})
}

// mixedPlatformsProblem rejects whole platforms and placements named together
// (in the platforms argument when op is "", else in a platform filter with op),
// offering each reading.
func mixedPlatformsProblem(field string, value any, given []string, op Operator) Problem {
	var whole, names, also, overlap, other []string
	var pubs []catalog.Publisher
	for _, s := range given {
		if p, ok := canonicalPlatform(s); ok {
			if !slices.Contains(whole, p) {
				whole = append(whole, p)
			}
			// A whole name that is also a placement ("facebook") may have meant it.
			if pub, ok := catalog.LookupPublisher(s); ok && !slices.Contains(also, pub.Name) {
				also = append(also, pub.Name)
			}
		} else if pub, ok := catalog.LookupPublisher(s); ok && !slices.Contains(names, pub.Name) {
			names = append(names, pub.Name)
			pubs = append(pubs, pub)
			if !slices.Contains(also, pub.Name) {
				also = append(also, pub.Name)
			}
		}
	}
	for _, w := range whole {
		if slices.ContainsFunc(pubs, func(p catalog.Publisher) bool { return p.Platform == w }) {
			overlap = append(overlap, w)
		} else {
			other = append(other, w)
		}
	}
	filter := func(field string, vals []string) string {
		o := op
		switch {
		case o == "" && len(vals) == 1:
			o = Equals
		case o == "" || len(vals) > 1 && o == Equals:
			o = In
		case len(vals) > 1 && o == NotEquals:
			o = NotIn
		}
		if o == In || o == NotIn {
			return fmt.Sprintf(`{"field":%q,"operator":%q,"value":%s}`, field, o, jsonList(vals))
		}
		return fmt.Sprintf(`{"field":%q,"operator":%q,"value":%q}`, field, o, vals[0])
	}
	p := Problem{Field: field, Value: value}
	if len(overlap) > 0 {
		p.Problem = fmt.Sprintf("names all of %s and placements inside it (%s) together: ambiguous, the whole platform or only those placements?",
			strings.Join(overlap, ", "), strings.Join(names, ", "))
	} else {
		p.Problem = fmt.Sprintf("names whole platforms (%s) and placements of other platforms (%s) together: a placement is a publisher_platform filter, which would also cut %s",
			strings.Join(other, ", "), strings.Join(names, ", "), strings.Join(other, ", "))
	}
	var fixes []string
	switch {
	case op == "":
		if len(overlap) > 0 {
			fixes = append(fixes, fmt.Sprintf("for all of %s send platforms %s", strings.Join(overlap, ", "), jsonList(overlap)))
		}
		fixes = append(fixes, fmt.Sprintf("for only the placements send platforms %s", jsonList(names)))
		if len(also) > len(names) {
			fixes = append(fixes, fmt.Sprintf("for the placements %s send platforms %s with the filter %s",
				strings.Join(also, " and "), jsonList(overlap), filter("publisher_platform", also)))
		}
		if len(other) > 0 {
			fixes = append(fixes, fmt.Sprintf("query %s in a separate call", strings.Join(other, ", ")))
		}
	case op == NotEquals || op == NotIn:
		fixes = append(fixes, fmt.Sprintf("to exclude both, use two filters: %s and %s", filter("platform", whole), filter("publisher_platform", names)))
		if len(also) > len(names) {
			fixes = append(fixes, fmt.Sprintf("to exclude only the placements %s use %s", strings.Join(also, " and "), filter("publisher_platform", also)))
		}
	default:
		if len(overlap) > 0 {
			fixes = append(fixes, fmt.Sprintf("for all of %s use %s", strings.Join(overlap, ", "), filter("platform", overlap)))
		}
		fixes = append(fixes, fmt.Sprintf("for only the placements use %s", filter("publisher_platform", also)))
		if len(other) > 0 {
			fixes = append(fixes, fmt.Sprintf("query %s in a separate call", strings.Join(other, ", ")))
		}
	}
	p.Fix = strings.Join(fixes, "; ")
	return p
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

// UnknownAccounts returns the entries of given (account_ids as a caller wrote
// them) that name no account of visible the way normalization resolves them
// — by ID, folded ID or name; a name several accounts share is known. A
// caller that keeps the list may refresh it before normalizing when some are
// unknown.
func UnknownAccounts(visible []ads.Account, given []string) []string {
	var unknown []string
	for _, s := range given {
		if _, _, ok := findAccount(visible, s); !ok && len(accountsNamed(visible, s)) < 2 {
			unknown = append(unknown, s)
		}
	}
	return unknown
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
// to its canonical name, or explains the valid names. A placement ("Instagram")
// is not a platform: the error says which platform it is inside.
func CanonicalPlatform(s string) (string, error) {
	if p, ok := canonicalPlatform(s); ok {
		return p, nil
	}
	if pub, ok := catalog.LookupPublisher(s); ok {
		return "", fmt.Errorf("%q is a placement inside %s, not an ad platform (publisher_platform %s); valid platforms: %s",
			s, pub.Platform, pub.Name, strings.Join(catalog.AllPlatforms, ", "))
	}
	return "", fmt.Errorf("unknown platform %q; valid: %s", s, strings.Join(catalog.AllPlatforms, ", "))
}

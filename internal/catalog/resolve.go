package catalog

import (
	"sort"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"
)

// Key folds a field name the way AI clients misspell it: case, spaces, dots, dashes,
// underscores and camelCase boundaries are ignored, and API prefixes such as
// "metrics." or "segments." are dropped. "Campaign Name", "campaign.name",
// "campaignName" and "CAMPAIGN_NAME" all fold to "campaignname".
func Key(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	k := b.String()
	for _, prefix := range apiPrefixes {
		if strings.HasPrefix(k, prefix) && len(k) > len(prefix) {
			if _, ok := byKey[k]; !ok {
				k = strings.TrimPrefix(k, prefix)
			}
			break
		}
	}
	return k
}

// apiPrefixes are resource prefixes of the platforms' query languages (GAQL's
// "metrics.clicks", "segments.device") that carry no meaning for adsmcp.
var apiPrefixes = []string{"metrics", "segments", "insights"}

// Resolve maps a name as an AI client wrote it to a catalog field: the canonical
// name itself, or any spelling that folds (see Key) to the name or one of its
// synonyms. exact is true when name was already canonical.
func Resolve(name string) (f Field, exact bool, ok bool) {
	if f, ok := Lookup(name); ok {
		return f, true, true
	}
	i, ok := byKey[Key(name)]
	if !ok {
		return Field{}, false, false
	}
	return fields[i], false, true
}

// Closest returns up to n canonical names closest to name by edit distance over the
// folded forms of names and synonyms, limited to fields of the given kinds (all
// kinds when none are given). It is what turns "spnd" into "did you mean spend".
func Closest(name string, n int, kinds ...Kind) []string {
	key := Key(name)
	if key == "" || n <= 0 {
		return nil // nothing to compare: every short name would look close
	}
	best := map[string]int{}
	for k, i := range byKey {
		f := fields[i]
		if len(kinds) > 0 && !hasKind(kinds, f.Kind) {
			continue
		}
		d := levenshtein.ComputeDistance(key, k)
		if strings.Contains(k, key) && len(key) >= 3 || strings.Contains(key, k) && len(k) >= 3 {
			d = min(d, 2)
		}
		if old, seen := best[f.Name]; !seen || d < old {
			best[f.Name] = d
		}
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	// Plausible matches only: at most half the name may differ (at least one
	// edit), so that "zz" or "x" do not "mean" every two-letter synonym.
	limit := max(1, len(key)/2)
	for name, d := range best {
		if d <= limit {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].d != cs[b].d {
			return cs[a].d < cs[b].d
		}
		return cs[a].name < cs[b].name
	})
	out := make([]string, 0, n)
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func hasKind(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// byKey maps the folded form of every canonical name and synonym to its field.
// Building it panics on a collision, so an ambiguous synonym cannot ship: the
// catalog tests load this package.
var byKey = func() map[string]int {
	m := map[string]int{}
	add := func(s string, i int) {
		k := foldKey(s)
		if j, dup := m[k]; dup && j != i {
			panic("catalog: " + s + " names both " + fields[j].Name + " and " + fields[i].Name)
		}
		m[k] = i
	}
	for i, f := range fields {
		add(f.Name, i)
		for _, s := range f.Synonyms {
			add(s, i)
		}
	}
	return m
}()

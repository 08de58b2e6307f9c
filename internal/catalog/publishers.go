package catalog

import (
	"strings"
	"unicode"
)

// Publisher is a value of the publisher_platform dimension: where inside an ad
// platform an ad ran (Meta's publisher_platform breakdown, Google's
// segments.ad_network_type, TikTok's placement). A publisher platform is a part of
// one ad platform, never an ad platform itself: "Instagram" is meta_ads restricted
// to publisher_platform = instagram.
type Publisher struct {
	// Name is the value as the data stores it ("instagram", "audience_network").
	Name string `json:"name"`
	// Platform is the ad platform the publisher platform belongs to.
	Platform string `json:"platform"`
	// Aliases are other names people and the platforms' APIs use for it ("IG",
	// Google's CONTENT for display); they fold like Name (case, spaces, punctuation).
	Aliases []string `json:"aliases,omitempty"`
}

// publishers are every publisher_platform value adsmcp knows, from the
// platform table: the values the connectors, the importer and the demo data
// write (docs/meta.md, docs/googleads.md, docs/import.md).
var publishers = func() []Publisher {
	var out []Publisher
	for _, p := range platforms {
		for _, pub := range p.Publishers {
			pub.Platform = p.Name
			out = append(out, pub)
		}
	}
	return out
}()

// Publishers returns every known publisher platform, grouped by ad platform in
// AllPlatforms order. The slice is a copy.
func Publishers() []Publisher {
	out := make([]Publisher, len(publishers))
	copy(out, publishers)
	return out
}

// PublisherNames returns the known publisher_platform values of the given ad
// platforms (all when none are given), in catalog order.
func PublisherNames(platforms ...string) []string {
	var out []string
	for _, p := range publishers {
		if len(platforms) == 0 || contains(platforms, p.Platform) {
			out = append(out, p.Name)
		}
	}
	return out
}

// LookupPublisher finds the publisher platform a value names: its Name or an
// alias, ignoring case, spaces and punctuation ("Audience Network",
// "AUDIENCE_NETWORK", "IG", "CONTENT").
func LookupPublisher(s string) (Publisher, bool) {
	i, ok := publisherByKey[foldKey(s)]
	if !ok {
		return Publisher{}, false
	}
	return publishers[i], true
}

// PublisherKeys returns the folded names and aliases of every publisher platform
// with the Name each stands for: the candidates for "did you mean".
func PublisherKeys() map[string]string {
	out := make(map[string]string, len(publisherByKey))
	for k, i := range publisherByKey {
		out[k] = publishers[i].Name
	}
	return out
}

// publisherByKey maps the folded Name and aliases of every publisher platform to
// its index. Building it panics on a collision, so an ambiguous alias cannot ship.
var publisherByKey = func() map[string]int {
	m := map[string]int{}
	for i, p := range publishers {
		for _, s := range append([]string{p.Name}, p.Aliases...) {
			k := foldKey(s)
			if j, dup := m[k]; dup && j != i {
				panic("catalog: " + s + " names both publisher platforms " + publishers[j].Name + " and " + p.Name)
			}
			m[k] = i
		}
	}
	return m
}()

// foldKey lower-cases s and drops everything but letters and digits.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

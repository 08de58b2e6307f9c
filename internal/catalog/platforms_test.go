package catalog

import (
	"slices"
	"testing"
)

// TestPlatformTable: the table is consistent — names and aliases name one
// platform each, every publisher platform belongs to a platform of the table,
// and AllPlatforms is the table's order.
func TestPlatformTable(t *testing.T) {
	seen := map[string]string{}
	for i, p := range Platforms() {
		if AllPlatforms[i] != p.Name {
			t.Errorf("AllPlatforms[%d] = %s, the table has %s", i, AllPlatforms[i], p.Name)
		}
		if p.Label == "" || p.DisplayName == "" {
			t.Errorf("%s: no label or display name", p.Name)
		}
		for _, s := range append([]string{p.Name}, p.Aliases...) {
			if other, dup := seen[foldKey(s)]; dup {
				t.Errorf("%q names both %s and %s", s, other, p.Name)
			}
			seen[foldKey(s)] = p.Name
		}
		if got, ok := PlatformByName(p.Name); !ok || got.Name != p.Name {
			t.Errorf("PlatformByName(%s) = %v %v", p.Name, got.Name, ok)
		}
	}
	for _, pub := range Publishers() {
		if _, ok := PlatformByName(pub.Platform); !ok {
			t.Errorf("publisher %s: platform %q is not in the table", pub.Name, pub.Platform)
		}
	}
	if got := PublisherNames(TikTokAds); len(got) != 3 || got[0] != "tiktok" {
		t.Errorf("TikTok's publisher platforms: %v", got)
	}
}

// TestAccountIDForms: an ID in a platform's own form says its platform, bare
// digits say nothing, and each form normalizes other spellings of its IDs.
func TestAccountIDForms(t *testing.T) {
	for s, want := range map[string]string{"act_1015": MetaAds, "ACT_1015": MetaAds, "617-204-8851": GoogleAds, "6172048851": "", "act_": "", "617-204-885x": ""} {
		if got, _ := PlatformOfAccountID(s); got != want {
			t.Errorf("PlatformOfAccountID(%q) = %q, want %q", s, got, want)
		}
	}
	for _, c := range []struct{ id, platform, want string }{
		{" ACT_1015 ", MetaAds, "act_1015"},
		{"1015", MetaAds, "act_1015"},
		{"act_x", MetaAds, "act_x"},
		{"6172048851", GoogleAds, "617-204-8851"},
		{"617-2048851", GoogleAds, "617-204-8851"},
		{"61720488", GoogleAds, "61720488"},
		{"7201845539016472318", TikTokAds, "7201845539016472318"},
	} {
		if got := NormalizeAccountID(c.id, c.platform); got != c.want {
			t.Errorf("NormalizeAccountID(%q, %s) = %q, want %q", c.id, c.platform, got, c.want)
		}
	}
}

// TestPlatformRowsNameWhatExists: a platform's row names only breakdown sets
// and stored metrics the catalog has, each once, delivery among its sets —
// a misspelling there would silently change what the platform reports.
func TestPlatformRowsNameWhatExists(t *testing.T) {
	for _, p := range Platforms() {
		if !slices.Contains(p.Sets, Delivery) {
			t.Errorf("%s: Sets %v lacks %s", p.Name, p.Sets, Delivery)
		}
		for i, k := range p.Sets {
			if _, ok := BreakdownSetByKey(k); !ok || slices.Index(p.Sets, k) != i {
				t.Errorf("%s: set %q is unknown or listed twice", p.Name, k)
			}
		}
		for i, m := range p.NotReported {
			f, ok := Lookup(m)
			if !ok || (f.Aggregation != Sum && f.Distinct == "") || slices.Index(p.NotReported, m) != i {
				t.Errorf("%s: NotReported %q is not a stored metric, or listed twice", p.Name, m)
			}
		}
	}
}

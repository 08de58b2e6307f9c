package fakescale

import (
	"regexp"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// rowsOf is a Sink keeping what Replay gives.
type rowsOf struct{ rows }

func (r *rowsOf) Dataset(string, string) error  { return nil }
func (r *rowsOf) Account(a ads.Account) error   { r.account = a; return nil }
func (r *rowsOf) Campaign(c ads.Campaign) error { r.campaigns = append(r.campaigns, c); return nil }
func (r *rowsOf) AdSet(s ads.AdSet) error       { r.adsets = append(r.adsets, s); return nil }
func (r *rowsOf) Ad(a ads.Ad) error             { r.ads = append(r.ads, a); return nil }
func (r *rowsOf) Fact(f *ads.Fact) error        { r.facts = append(r.facts, *f); return nil }
func (r *rowsOf) Reach(x ads.Reach) error       { r.reach = append(r.reach, x); return nil }
func replay(t *testing.T, d *Data, id string) *rowsOf {
	t.Helper()
	r := &rowsOf{}
	if err := d.Replay(id, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// formats are each platform's account ID format.
var formats = map[string]*regexp.Regexp{
	catalog.MetaAds:   regexp.MustCompile(`^act_[1-9][0-9]{15}$`),
	catalog.GoogleAds: regexp.MustCompile(`^[0-9]{3}-[0-9]{3}-[0-9]{4}$`),
	catalog.TikTokAds: regexp.MustCompile(`^7[0-9]{18}$`),
}

// TestReplicas: N accounts per platform, the demo's first, then replicas
// with their own IDs (in the platform's format, unique across every account's
// objects) and names, and their original's rows under those IDs.
func TestReplicas(t *testing.T) {
	const n = 13
	s := Scale{Accounts: n, Days: 45, Campaigns: 0.02, Seed: 3, Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)}
	for platform, format := range formats {
		d, err := Load(s, platform)
		if err != nil {
			t.Fatal(err)
		}
		accounts := d.Accounts()
		if len(accounts) != n {
			t.Fatalf("%s: %d accounts, want %d", platform, len(accounts), n)
		}
		owner := map[string]string{} // every object ID → its account
		originals := len(d.base)
		for i, a := range accounts {
			if !format.MatchString(a.AccountID) {
				t.Errorf("%s: account ID %q is not in the platform's format", platform, a.AccountID)
			}
			r := replay(t, d, a.AccountID)
			orig := replay(t, d, accounts[i%originals].AccountID)
			if r.account.AccountID != a.AccountID || len(r.facts) != len(orig.facts) || len(r.campaigns) != len(orig.campaigns) ||
				len(r.ads) != len(orig.ads) || len(r.reach) != len(orig.reach) || len(r.facts) == 0 {
				t.Fatalf("%s: %s has not its original's rows", platform, a.AccountID)
			}
			if i >= originals && (r.account.AccountName != replicaName(orig.account.AccountName, 1+i/originals) || r.account.AccountID == orig.account.AccountID) {
				t.Errorf("%s: replica %d is %s %q", platform, i, r.account.AccountID, r.account.AccountName)
			}
			ids := map[string]string{} // the original's object ID → the replica's
			for j := range orig.facts {
				f, o := r.facts[j], orig.facts[j]
				if f.Measures != o.Measures || !f.Date.Equal(o.Date) || f.AccountID != a.AccountID {
					t.Fatalf("%s: %s fact %d differs from its original's", platform, a.AccountID, j)
				}
				for _, p := range [][2]string{{o.CampaignID, f.CampaignID}, {o.AdSetID, f.AdSetID}, {o.AdID, f.AdID}} {
					if was, ok := ids[p[0]]; ok && was != p[1] || len(p[0]) != len(p[1]) {
						t.Fatalf("%s: %s maps %s to %s and %s", platform, a.AccountID, p[0], was, p[1])
					}
					ids[p[0]] = p[1]
				}
			}
			for _, c := range r.campaigns {
				if other, ok := owner[c.CampaignID]; ok && other != a.AccountID {
					t.Errorf("%s: campaign %s in %s and %s", platform, c.CampaignID, other, a.AccountID)
				}
				owner[c.CampaignID] = a.AccountID
			}
			for _, x := range r.ads {
				if other, ok := owner[x.AdID]; ok && other != a.AccountID {
					t.Errorf("%s: ad %s in %s and %s", platform, x.AdID, other, a.AccountID)
				}
				owner[x.AdID] = a.AccountID
			}
		}
	}
}

// TestScaleZeroIsTheDemosAccounts: without Accounts, the platform's demo
// accounts, each once.
func TestScaleZeroIsTheDemosAccounts(t *testing.T) {
	d, err := Load(Scale{Days: 10, Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)}, catalog.MetaAds)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.Accounts()); got != 6 {
		t.Errorf("%d Meta accounts, want the demo's 6", got)
	}
}

// TestCacheKeepsTheLastUsed: a hit builds nothing; past its size, the least
// recently used account is built again.
func TestCacheKeepsTheLastUsed(t *testing.T) {
	builds := map[string]int{}
	c := newCache(2, func(id string) (string, error) { builds[id]++; return id + "!", nil })
	for _, id := range []string{"a", "b", "a", "c", "a", "b"} {
		if v, err := c.get(id); err != nil || v != id+"!" {
			t.Fatalf("get(%s) = %q, %v", id, v, err)
		}
	}
	// a b a (hit) c (evicts b) a (hit) b (evicts c, built again)
	if builds["a"] != 1 || builds["b"] != 2 || builds["c"] != 1 {
		t.Errorf("builds: %v", builds)
	}
}

package demo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"hash"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// TestReplicaStructure checks the accounts and objects above Scale 1 without
// generating facts: 14 accounts per copy shaped like the originals, and every
// account ID, account name and object ID unique across the dataset.
func TestReplicaStructure(t *testing.T) {
	one, _ := Config{Anchor: anchor, Seed: 42}.normalized()
	base := newPlan(one)
	for _, scale := range []float64{2, 3.2, MaxScale} {
		cfg, err := Config{Anchor: anchor, Seed: 42, Scale: scale}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		p := newPlan(cfg)
		n := len(accountSpecs)
		if want := n * int(math.Ceil(scale)); len(p.accounts) != want {
			t.Fatalf("scale %g: %d accounts, want %d", scale, len(p.accounts), want)
		}
		accountIDs, names, objectIDs := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for i, a := range p.accounts {
			k, orig := i/n+1, &accountSpecs[i%n]
			acc := a.spec.account()
			if accountIDs[acc.AccountID] || names[acc.AccountName] {
				t.Errorf("scale %g: account %q (%s) is not unique", scale, acc.AccountName, acc.AccountID)
			}
			accountIDs[acc.AccountID], names[acc.AccountName] = true, true
			if !validAccountID(acc) {
				t.Errorf("scale %g: account id %q does not look like a %s id", scale, acc.AccountID, acc.Platform)
			}
			want := orig.account()
			if k > 1 {
				want.AccountID, want.AccountName = acc.AccountID, "Replica "+strconv.Itoa(k)+" - "+orig.AccountName
			}
			if acc != want {
				t.Errorf("scale %g: account %d is %+v, want %+v", scale, i, acc, want)
			}
			if a.spec.zero != orig.zero || a.spec.closed != orig.closed || a.spec.campaigns != orig.campaigns {
				t.Errorf("scale %g: %s is not shaped like %s", scale, acc.AccountName, orig.AccountName)
			}
			// Copy 1 is the Scale 1 dataset; every full copy has all the campaigns,
			// and the last copy of a fractional scale the fraction of them.
			if k == 1 && !slices.EqualFunc(a.campaigns, base.accounts[i].campaigns, func(x, y *campaignPlan) bool { return x.Campaign == y.Campaign }) {
				t.Errorf("scale %g: %s differs from the Scale 1 account", scale, acc.AccountName)
			}
			wantCampaigns := orig.campaigns
			if f := scale - float64(k-1); f < 1 {
				wantCampaigns = max(1, int(math.Round(float64(orig.campaigns)*f)))
			}
			if len(a.campaigns) != wantCampaigns {
				t.Errorf("scale %g: %s has %d campaigns, want %d", scale, acc.AccountName, len(a.campaigns), wantCampaigns)
			}
			for _, c := range a.campaigns {
				if c.AccountID != acc.AccountID {
					t.Errorf("campaign %s of %s has account %s", c.CampaignID, acc.AccountID, c.AccountID)
				}
				for _, id := range append([]string{c.CampaignID}, childIDs(c)...) {
					if objectIDs[id] || !allDigits(id) {
						t.Errorf("scale %g: object id %q duplicated or not numeric", scale, id)
					}
					objectIDs[id] = true
				}
			}
		}
		// A replica's data is its own: its campaigns differ from its original's.
		orig, rep := p.accounts[0].campaigns, p.accounts[n].campaigns
		if orig[0].budget == rep[0].budget || orig[0].Name == rep[0].Name && orig[1].Name == rep[1].Name && orig[2].Name == rep[2].Name {
			t.Errorf("scale %g: replica campaigns look like copies of the original's", scale)
		}
	}
}

func validAccountID(a ads.Account) bool {
	switch a.Platform {
	case metaAds:
		return strings.HasPrefix(a.AccountID, "act_") && len(a.AccountID) == 20 && a.AccountID[4] != '0' && allDigits(a.AccountID[4:])
	case googleAds:
		return len(a.AccountID) == 12 && a.AccountID[0] != '0' && a.AccountID[3] == '-' && a.AccountID[7] == '-' && allDigits(strings.ReplaceAll(a.AccountID, "-", ""))
	case tiktokAds:
		return len(a.AccountID) == 19 && a.AccountID[0] == '7' && allDigits(a.AccountID)
	}
	return false
}

// The accounts are listed by platform, name and ID: the replicas' names put the 14
// original accounts first on each platform at every scale.
func TestReplicasListAfterTheOriginals(t *testing.T) {
	cfg, _ := Config{Anchor: anchor, Seed: 42, Scale: 3.2}.normalized()
	p := newPlan(cfg)
	var accounts []ads.Account
	for _, a := range p.accounts {
		accounts = append(accounts, a.spec.account())
	}
	slices.SortFunc(accounts, func(x, y ads.Account) int {
		return strings.Compare(x.Platform+"\x00"+x.AccountName+"\x00"+x.AccountID, y.Platform+"\x00"+y.AccountName+"\x00"+y.AccountID)
	})
	seenReplica := map[string]bool{}
	for _, a := range accounts {
		replica := strings.HasPrefix(a.AccountName, "Replica ")
		if !replica && seenReplica[a.Platform] {
			t.Errorf("original account %q listed after a replica", a.AccountName)
		}
		seenReplica[a.Platform] = seenReplica[a.Platform] || replica
	}
}

// tableSink hashes each table's rows separately; with limits, only each table's
// first limits[table] rows go into its prefix hash.
type tableSink struct {
	dataset map[string]string
	hashes  map[string]hash.Hash
	prefix  map[string]string
	counts  map[string]int
	limits  map[string]int
	buf     []byte
}

func newTableSink(limits map[string]int) *tableSink {
	return &tableSink{dataset: map[string]string{}, hashes: map[string]hash.Hash{}, prefix: map[string]string{}, counts: map[string]int{}, limits: limits}
}

func (s *tableSink) put(table string, v any) error {
	return s.write(table, fmt.Appendf(s.buf[:0], "%+v\n", v))
}

func (s *tableSink) write(table string, row []byte) error {
	s.buf = row
	h := s.hashes[table]
	if h == nil {
		h = sha256.New()
		s.hashes[table] = h
	}
	if s.limits == nil || s.counts[table] < s.limits[table] {
		h.Write(row)
	}
	if s.counts[table]++; s.limits != nil && s.counts[table] == s.limits[table] {
		s.prefix[table] = fmt.Sprintf("%x", h.Sum(nil))
	}
	return nil
}

// sums returns each table's hash of all its rows, for a sink without limits.
func (s *tableSink) sums() map[string]string {
	for table, h := range s.hashes {
		s.prefix[table] = fmt.Sprintf("%x", h.Sum(nil))
	}
	return s.prefix
}

func (s *tableSink) Dataset(k, v string) error   { s.dataset[k] = v; return nil }
func (s *tableSink) Account(a ads.Account) error { return s.put("accounts", a) }
func (s *tableSink) Campaign(c Campaign) error   { return s.put("campaigns", c) }
func (s *tableSink) AdSet(a AdSet) error         { return s.put("adsets", a) }
func (s *tableSink) Ad(a Ad) error               { return s.put("ads", a) }

// Fact is put without fmt, which would make the test several times slower.
func (s *tableSink) Fact(f *Fact) error {
	b := f.Date.AppendFormat(s.buf[:0], time.DateOnly)
	for _, x := range []string{f.AccountID, f.CampaignID, f.AdSetID, f.AdID, f.Country, f.Device, f.PublisherPlatform} {
		b = append(append(b, ' '), x...)
	}
	for _, m := range []catalog.Measure{catalog.Spend, catalog.Impressions, catalog.Clicks, catalog.LinkClicks, catalog.ConversionValue, catalog.VideoViews} {
		b = strconv.AppendInt(append(b, ' '), int64(f.Measures[m]), 10)
	}
	b = strconv.AppendFloat(append(b, ' '), f.Measures[catalog.Conversions], 'g', -1, 64)
	return s.write("facts", append(b, '\n'))
}

func (s *tableSink) Reach(r Reach) error { return s.put("reach", r) }

// Scale 2's data begins, in every table, with exactly Scale 1's, and has about
// twice as many facts.
func TestScaleTwoExtendsScaleOne(t *testing.T) {
	one := Config{Anchor: anchor, Seed: 42, Days: 30, Scale: 1}
	s1 := newTableSink(nil)
	if err := Generate(context.Background(), one, s1, nil); err != nil {
		t.Fatal(err)
	}
	s1.sums()
	two := one
	two.Scale = 2
	s2 := newTableSink(s1.counts)
	if err := Generate(context.Background(), two, s2, nil); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"accounts", "campaigns", "adsets", "ads", "facts", "reach"} {
		if s1.counts[table] == 0 || s2.prefix[table] != s1.prefix[table] {
			t.Errorf("%s: scale 2 does not begin with scale 1's %d rows", table, s1.counts[table])
		}
		if s2.counts[table] <= s1.counts[table] {
			t.Errorf("%s: %d rows at scale 2, %d at scale 1", table, s2.counts[table], s1.counts[table])
		}
	}
	if s2.counts["accounts"] != 28 {
		t.Errorf("%d accounts at scale 2, want 28", s2.counts["accounts"])
	}
	if r := float64(s2.counts["facts"]) / float64(s1.counts["facts"]); r < 1.8 || r > 2.3 {
		t.Errorf("scale 2 has %.2f× scale 1's facts (%d vs %d), want about 2×", r, s2.counts["facts"], s1.counts["facts"])
	}
	if s2.dataset["scale"] != "2" || s1.dataset["scale"] != "1" {
		t.Errorf("dataset scale rows %q and %q, want 1 and 2", s1.dataset["scale"], s2.dataset["scale"])
	}
	delete(s1.dataset, "scale")
	delete(s2.dataset, "scale")
	if fmt.Sprint(s1.dataset) != fmt.Sprint(s2.dataset) {
		t.Errorf("dataset rows differ beyond the scale: %v vs %v", s1.dataset, s2.dataset)
	}
}

func TestReplicasDeterministic(t *testing.T) {
	cfg := Config{Anchor: anchor, Seed: 42, Days: 14, Scale: 2.5}
	hash := func() string {
		s := newTableSink(nil)
		if err := Generate(context.Background(), cfg, s, nil); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(s.sums(), s.counts, s.dataset)
	}
	h1 := hash()
	prev := runtime.GOMAXPROCS(1)
	h2 := hash()
	runtime.GOMAXPROCS(prev)
	if h1 != h2 {
		t.Fatalf("same config, different output:\n%s\n%s", h1, h2)
	}
}

// countSink counts the rows of each table.
type countSink struct{ accounts, campaigns, adsets, ads, facts, breakdownFacts, reach int64 }

func (s *countSink) Dataset(k, v string) error   { return nil }
func (s *countSink) Account(a ads.Account) error { s.accounts++; return nil }
func (s *countSink) Campaign(c Campaign) error   { s.campaigns++; return nil }
func (s *countSink) AdSet(a AdSet) error         { s.adsets++; return nil }
func (s *countSink) Ad(a Ad) error               { s.ads++; return nil }
func (s *countSink) Fact(f *Fact) error {
	s.facts++
	if f.Breakdown != "" {
		s.breakdownFacts++
	}
	return nil
}
func (s *countSink) Reach(r Reach) error { s.reach++; return nil }

// BenchmarkGenerate measures generation alone (into a counting sink) of the
// standard dataset and of the benchmark sizes, and reports its rows:
//
//	go test -run '^$' -bench Generate -benchtime 1x ./internal/demo/
func BenchmarkGenerate(b *testing.B) {
	for _, scale := range []float64{1, 2, 3.2} {
		b.Run("scale="+strconv.FormatFloat(scale, 'g', -1, 64), func(b *testing.B) {
			var s *countSink
			for b.Loop() {
				s = &countSink{}
				if err := Generate(context.Background(), Config{Anchor: anchor, Seed: DefaultSeed, Scale: scale}, s, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.accounts), "accounts")
			b.ReportMetric(float64(s.campaigns), "campaigns")
			b.ReportMetric(float64(s.facts), "facts")
			b.ReportMetric(float64(s.breakdownFacts), "breakdown_facts")
			b.ReportMetric(float64(s.reach), "reach")
		})
	}
}

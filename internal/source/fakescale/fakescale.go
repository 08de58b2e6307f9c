// Package fakescale is the data of the API fakes (metatest, googleadstest,
// tiktoktest) at a chosen scale: any number of accounts per platform over any
// number of days, deterministic from a seed, without holding every account's
// rows at once.
//
// The demo generator makes 6 Meta, 5 Google and 3 TikTok accounts (at most ten
// copies of them, all at once, in memory). Here it runs once, at the scale's days
// and campaign fraction; the platform's first N accounts are the demo's, then
// replicas of them in turn: replica k of an account (k ≥ 2, named "Replica k -
// …" as the demo names its own replicas) has the same rows with their own
// account, campaign, ad set and ad IDs, drawn in the platform's format, so a
// replica's numbers are its original's. A fake builds one account's rows when a
// request needs them (Replay) and keeps a few (Cache).
package fakescale

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
)

// Scale is the size of a fake's dataset. It is comparable: equal scales share
// one generated dataset per process.
type Scale struct {
	// Accounts per platform; 0 means the demo's own (6 Meta, 5 Google, 3 TikTok).
	Accounts int
	// Days of data, ending the day before Anchor (demo.Config.Days).
	Days int
	// Campaigns is the fraction of each account's campaigns kept, in (0, 1]
	// (demo.Config.Scale); 0 means DefaultCampaigns.
	Campaigns float64
	Seed      uint64
	// Anchor is the day after the data ends.
	Anchor time.Time
}

// DefaultCampaigns is the campaign fraction of the tests' dataset
// (duckdbtest.Config): each account keeps 6% of its campaigns.
const DefaultCampaigns = 0.06

// Demo is the demo generator's configuration for the scale's base data.
func (s Scale) Demo() demo.Config {
	c := s.Campaigns
	if c == 0 {
		c = DefaultCampaigns
	}
	return demo.Config{Anchor: s.Anchor, Seed: s.Seed, Days: s.Days, Scale: c}
}

// Data is one platform's accounts at a scale.
type Data struct {
	accounts []ads.Account
	of       map[string]copyOf // served account ID → its original and copy
	base     map[string]*rows  // by original account ID
	ids      map[copyKey]string
}

type copyOf struct {
	base string
	k    int // 1: the original itself
}

type copyKey struct {
	k  int
	id string
}

// rows are one original account's rows, in the order a Sink receives them.
type rows struct {
	account   ads.Account
	campaigns []ads.Campaign
	adsets    []ads.AdSet
	ads       []ads.Ad
	facts     []ads.Fact
	reach     []ads.Reach
}

type loaded struct {
	once sync.Once
	set  map[string]*Data
	err  error
}

var sets sync.Map // Scale → *loaded

// Load generates (once per scale and process) the scale's data and returns the
// platform's part.
func Load(s Scale, platform string) (*Data, error) {
	if s.Accounts < 0 {
		return nil, fmt.Errorf("fakescale: accounts must not be negative, got %d", s.Accounts)
	}
	v, _ := sets.LoadOrStore(s, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() {
		c := &collector{set: map[string]*Data{}, platformOf: map[string]string{}}
		if l.err = demo.Generate(context.Background(), s.Demo(), c, nil); l.err != nil {
			l.err = fmt.Errorf("fakescale: generating the demo data: %w", l.err)
			return
		}
		for _, d := range c.set {
			d.replicate(s.Accounts, c.order[d])
		}
		l.set = c.set
	})
	if l.err != nil {
		return nil, l.err
	}
	d := l.set[platform]
	if d == nil {
		return nil, errors.New("fakescale: no demo account on platform " + platform)
	}
	return d, nil
}

// Accounts are the platform's accounts, originals first.
func (d *Data) Accounts() []ads.Account { return d.accounts }

// Has reports whether the platform has the account.
func (d *Data) Has(accountID string) bool { _, ok := d.of[accountID]; return ok }

// Replay gives sink one account's rows, in the Sink order (facts in date
// order), under the account's own IDs.
func (d *Data) Replay(accountID string, sink ads.Sink) error {
	return d.ReplaySome(accountID, sink, nil)
}

// ReplaySome is Replay with only the facts keep keeps (all when keep is nil):
// a fake answering what needs no numbers builds an account's data fast.
func (d *Data) ReplaySome(accountID string, sink ads.Sink, keep func(*ads.Fact) bool) error {
	c, ok := d.of[accountID]
	if !ok {
		return fmt.Errorf("fakescale: no account %s", accountID)
	}
	r := d.base[c.base]
	id := func(x string) string {
		if c.k == 1 || x == "" {
			return x
		}
		return d.ids[copyKey{c.k, x}]
	}
	a := r.account
	if c.k > 1 {
		a.AccountID, a.AccountName = id(a.AccountID), replicaName(a.AccountName, c.k)
	}
	if err := sink.Account(a); err != nil {
		return err
	}
	for _, x := range r.campaigns {
		x.CampaignID, x.AccountID = id(x.CampaignID), a.AccountID
		if err := sink.Campaign(x); err != nil {
			return err
		}
	}
	for _, x := range r.adsets {
		x.AdSetID, x.CampaignID, x.AccountID = id(x.AdSetID), id(x.CampaignID), a.AccountID
		if err := sink.AdSet(x); err != nil {
			return err
		}
	}
	for _, x := range r.ads {
		x.AdID, x.AdSetID, x.CampaignID, x.AccountID = id(x.AdID), id(x.AdSetID), id(x.CampaignID), a.AccountID
		if err := sink.Ad(x); err != nil {
			return err
		}
	}
	for i := range r.facts {
		if keep != nil && !keep(&r.facts[i]) {
			continue
		}
		f := r.facts[i]
		f.AccountID, f.CampaignID, f.AdSetID, f.AdID = a.AccountID, id(f.CampaignID), id(f.AdSetID), id(f.AdID)
		if err := sink.Fact(&f); err != nil {
			return err
		}
	}
	for _, x := range r.reach {
		x.ObjectID, x.AccountID = id(x.ObjectID), a.AccountID
		if err := sink.Reach(x); err != nil {
			return err
		}
	}
	return nil
}

// replicaName is the demo's name for copy k of an account (demo's replicas.go):
// the prefix sorts replicas after the originals.
func replicaName(name string, k int) string { return "Replica " + strconv.Itoa(k) + " - " + name }

// replicate makes the platform's n accounts (all originals when n is 0) and
// the IDs of the replicas' objects. IDs are drawn in a fixed order and redrawn
// on a clash with any ID already taken, so they are unique and the same in
// every run.
func (d *Data) replicate(n int, originals []string) {
	if n == 0 {
		n = len(originals)
	}
	d.of = map[string]copyOf{}
	d.ids = map[copyKey]string{}
	taken := map[string]bool{}
	for _, id := range originals {
		r := d.base[id]
		taken[id] = true
		for _, x := range objects(r) {
			taken[x] = true
		}
	}
	for i := range n {
		base, k := originals[i%len(originals)], 1+i/len(originals)
		r := d.base[base]
		a := r.account
		if k > 1 {
			for _, x := range append([]string{base}, objects(r)...) {
				d.ids[copyKey{k, x}] = newID(x, k, taken)
			}
			a.AccountID, a.AccountName = d.ids[copyKey{k, base}], replicaName(a.AccountName, k)
		}
		d.of[a.AccountID] = copyOf{base, k}
		d.accounts = append(d.accounts, a)
	}
}

// objects are the IDs of an account's campaigns, ad sets and ads.
func objects(r *rows) []string {
	var out []string
	for _, c := range r.campaigns {
		out = append(out, c.CampaignID)
	}
	for _, s := range r.adsets {
		out = append(out, s.AdSetID)
	}
	for _, a := range r.ads {
		out = append(out, a.AdID)
	}
	return out
}

// newID is copy k's ID for id, in id's format: its characters up to and
// including its first two digits kept, every later digit drawn, dashes and
// length kept ("act_10…", "48x-xxx-xxxx", "1202…" stays Meta-like).
func newID(id string, k int, taken map[string]bool) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(k)))
	for {
		b := []byte(id)
		seen := 0
		for i, c := range b {
			if c < '0' || c > '9' {
				continue
			}
			if seen++; seen > 2 {
				b[i] = byte('0' + r.IntN(10))
			}
		}
		if s := string(b); !taken[s] {
			taken[s] = true
			return s
		}
	}
}

// collector splits the demo's rows by platform and original account.
type collector struct {
	set        map[string]*Data
	order      map[*Data][]string
	platformOf map[string]string
}

func (c *collector) rows(accountID string) *rows {
	if d := c.set[c.platformOf[accountID]]; d != nil {
		return d.base[accountID]
	}
	return nil
}

func (c *collector) Dataset(string, string) error { return nil }

func (c *collector) Account(a ads.Account) error {
	d := c.set[a.Platform]
	if d == nil {
		d = &Data{base: map[string]*rows{}}
		c.set[a.Platform] = d
		if c.order == nil {
			c.order = map[*Data][]string{}
		}
	}
	c.platformOf[a.AccountID] = a.Platform
	d.base[a.AccountID] = &rows{account: a}
	c.order[d] = append(c.order[d], a.AccountID)
	return nil
}

func (c *collector) Campaign(x ads.Campaign) error {
	r := c.rows(x.AccountID)
	r.campaigns = append(r.campaigns, x)
	return nil
}

func (c *collector) AdSet(x ads.AdSet) error {
	r := c.rows(x.AccountID)
	r.adsets = append(r.adsets, x)
	return nil
}

func (c *collector) Ad(x ads.Ad) error {
	r := c.rows(x.AccountID)
	r.ads = append(r.ads, x)
	return nil
}

func (c *collector) Fact(f *ads.Fact) error {
	r := c.rows(f.AccountID)
	r.facts = append(r.facts, *f)
	return nil
}

func (c *collector) Reach(x ads.Reach) error {
	r := c.rows(x.AccountID)
	r.reach = append(r.reach, x)
	return nil
}

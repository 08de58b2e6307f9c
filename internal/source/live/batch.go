package live

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Batch collects the rows connectors fetch for one query; it is safe for
// concurrent use by several connectors and their workers.
//
// Facts: one per row the platform returns, with Date the first day the row
// covers, which must lie in the query's date range: the day for daily rows,
// else the period's first day clipped to the range's start (a monthly row of a
// range starting on the 15th has Date the 15th). Weekly queries are best
// fetched as daily rows (the warehouse SQL rolls them up into ISO weeks
// exactly); monthly and total queries may be fetched as monthly or whole-range
// rows. Dimensions the query does not group by may stay empty. Money in micros
// of the account's currency; LinkClicks ads.NotReported when the platform has
// none.
//
// Reach: one row per account or campaign and period of the query's grain
// (daily, weekly: the ISO week's Monday, monthly: the 1st), for whole periods
// inside the range only — reach is never summed, so a row is only ever
// answered from a value the platform computed for exactly that period.
type Batch struct {
	mu        sync.Mutex
	campaigns map[string]ads.Campaign
	adsets    map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     []ads.Fact
	reach     []ads.Reach
}

func newBatch() *Batch {
	return &Batch{campaigns: map[string]ads.Campaign{}, adsets: map[string]ads.AdSet{}, ads: map[string]ads.Ad{}}
}

// NewBatch returns an empty batch (for connectors' tests).
func NewBatch() *Batch { return newBatch() }

// Campaign records a campaign's name and details (the last one recorded wins).
func (b *Batch) Campaign(c ads.Campaign) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.campaigns[c.AccountID+"\x00"+c.CampaignID] = c
}

// AdSet records an ad set's (Google: ad group's) name.
func (b *Batch) AdSet(s ads.AdSet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.adsets[s.AccountID+"\x00"+s.AdSetID] = s
}

// Ad records an ad's name.
func (b *Batch) Ad(a ads.Ad) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ads[a.AccountID+"\x00"+a.AdID] = a
}

// Facts adds metric rows.
func (b *Batch) Facts(fs ...ads.Fact) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.facts = append(b.facts, fs...)
}

// Reach adds reach rows.
func (b *Batch) Reach(rs ...ads.Reach) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reach = append(b.reach, rs...)
}

// Snapshot returns copies of what the batch holds, sorted (for tests).
func (b *Batch) Snapshot() (campaigns []ads.Campaign, adsets []ads.AdSet, adList []ads.Ad, facts []ads.Fact, reach []ads.Reach) {
	b.mu.Lock()
	defer b.mu.Unlock()
	campaigns = sortedValues(b.campaigns)
	adsets = sortedValues(b.adsets)
	adList = sortedValues(b.ads)
	facts = slices.Clone(b.facts)
	slices.SortStableFunc(facts, func(x, y ads.Fact) int {
		return cmp.Or(cmp.Compare(x.AccountID, y.AccountID), x.Date.Compare(y.Date))
	})
	reach = slices.Clone(b.reach)
	return
}

func sortedValues[T any](m map[string]T) []T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// emit writes the batch to a warehouse loader in the order ads.Sink asks for.
func (b *Batch) emit(accounts []ads.Account, sink ads.Sink) error {
	if err := sink.Dataset("kind", "live"); err != nil {
		return err
	}
	for _, a := range accounts {
		if err := sink.Account(a); err != nil {
			return err
		}
	}
	campaigns, adsets, adList, facts, reach := b.Snapshot()
	for _, c := range campaigns {
		if err := sink.Campaign(c); err != nil {
			return err
		}
	}
	for _, s := range adsets {
		if err := sink.AdSet(s); err != nil {
			return err
		}
	}
	for _, a := range adList {
		if err := sink.Ad(a); err != nil {
			return err
		}
	}
	for i := range facts {
		if err := sink.Fact(&facts[i]); err != nil {
			return err
		}
	}
	for _, r := range reach {
		if err := sink.Reach(r); err != nil {
			return err
		}
	}
	return nil
}

// merge adds what o holds to b; o, an account's own batch, is not used
// again.
func (b *Batch) merge(o *Batch) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	maps.Copy(b.campaigns, o.campaigns)
	maps.Copy(b.adsets, o.adsets)
	maps.Copy(b.ads, o.ads)
	b.facts = append(b.facts, o.facts...)
	b.reach = append(b.reach, o.reach...)
}

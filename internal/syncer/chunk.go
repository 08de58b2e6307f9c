package syncer

import (
	"cmp"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// chunkOf is what one account's fetched batches write for span s. Every
// plan recorded the objects it saw; a plan that did not ask for a detail (a
// breakdown set's plan asks no status) records it empty, so the details
// merge: the first non-empty value of each wins.
func chunkOf(a ads.Account, s Span, batches []*live.Batch) *importer.Chunk {
	c := &importer.Chunk{Account: a, First: s.First, Last: s.Last}
	for _, set := range catalog.PlatformSets(a.Platform) {
		c.Sets = append(c.Sets, set.Key)
	}
	campaigns := map[string]ads.Campaign{}
	adsets := map[string]ads.AdSet{}
	adList := map[string]ads.Ad{}
	for _, b := range batches {
		cs, ss, as, facts, reach := b.Snapshot()
		for _, x := range cs {
			campaigns[x.CampaignID] = mergeCampaign(campaigns[x.CampaignID], x)
		}
		for _, x := range ss {
			if old, ok := adsets[x.AdSetID]; !ok || old.Name == "" {
				adsets[x.AdSetID] = x
			}
		}
		for _, x := range as {
			if old, ok := adList[x.AdID]; !ok || old.Name == "" {
				adList[x.AdID] = x
			}
		}
		c.Facts = append(c.Facts, facts...)
		c.Reach = append(c.Reach, reach...)
	}
	c.Campaigns = values(campaigns, func(x ads.Campaign) string { return x.CampaignID })
	c.AdSets = values(adsets, func(x ads.AdSet) string { return x.AdSetID })
	c.Ads = values(adList, func(x ads.Ad) string { return x.AdID })
	slices.SortStableFunc(c.Facts, func(x, y ads.Fact) int { return x.Date.Compare(y.Date) })
	return c
}

// mergeCampaign keeps what each recording of a campaign knows.
func mergeCampaign(old, x ads.Campaign) ads.Campaign {
	if old.CampaignID == "" {
		return x
	}
	old.Name = cmp.Or(old.Name, x.Name)
	old.Objective = cmp.Or(old.Objective, x.Objective)
	old.Status = cmp.Or(old.Status, x.Status)
	if old.StartDate.IsZero() || !x.StartDate.IsZero() && x.StartDate.Before(old.StartDate) {
		old.StartDate = x.StartDate
	}
	if x.EndDate.After(old.EndDate) {
		old.EndDate = x.EndDate
	}
	return old
}

func values[T any](m map[string]T, key func(T) string) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// today is the account's current day in its time zone (UTC midnight of
// the civil date, as facts are dated); UTC when the zone is unknown.
func today(now time.Time, tz string) time.Time {
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" {
		loc = time.UTC
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

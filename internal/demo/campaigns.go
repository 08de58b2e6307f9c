package demo

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Campaign statuses, normalized across platforms.
const (
	campaignActive   = "ACTIVE"
	campaignPaused   = "PAUSED"
	campaignArchived = "ARCHIVED"
)

// buildCampaign builds the account's i-th campaign (of the full, Scale 1 list) with
// its ad sets and ads. Everything but the IDs comes from the campaign's own stream;
// IDs come from the account's ID stream, drawn in full-list order, so a campaign
// has the same IDs at every Scale.
func (p *plan) buildCampaign(a *accountPlan, i int, ids *rand.Rand, names map[string]int) *campaignPlan {
	spec := a.spec
	r := newRand(p.cfg.Seed, tagCampaign, a.key, uint64(i))
	lang := spec.Platform
	if spec.spanish {
		lang = "es"
	}
	t := staples[lang]
	if i > 0 {
		ts := templates[lang]
		w := make([]float64, len(ts))
		for k := range ts {
			w[k] = ts[k].weight
		}
		t = ts[pick(r, w)]
	}
	c := &campaignPlan{idx: i}
	c.AccountID = spec.AccountID
	c.CampaignID = p.newID(ids, spec.Platform, "campaign")
	c.Objective = t.objective
	year := p.schedule(c, a, t, r)

	cats := categories[spec.vertical]
	cc := spec.countries[0]
	if len(spec.countries) > 1 && r.IntN(3) == 0 {
		cc = spec.countries[pick(r, spec.cweights)]
	}
	launch := c.StartDate
	v := vars{cc: cc, cat: cats[r.IntN(len(cats))], y: strconv.Itoa(year),
		mon: months[launch.Month()-1] + " " + strconv.Itoa(launch.Year()), r: r}
	c.Name = uniqueName(fill(t.name, v), spec.Platform, v, cats, names)

	// Heavy-tailed budgets: most campaigns spend little, a few spend most.
	usd := min(pareto(r, 15, 1.5), 2500) * spec.size
	switch {
	case t.kind == "test":
		usd *= 0.5
	case t.kind != "evergreen":
		usd *= 1.6 // seasonal pushes get bigger budgets
	}
	if t.brand {
		usd *= 0.6
	}
	if t.retarget {
		usd *= 0.7
	}
	c.budget = usd * spec.fx
	c.perf = campaignPerf(profiles[spec.Platform][t.objective], t, r)
	c.freq = between(r, 1.05, 1.45)
	c.aud = p.newAudience(a, i)

	nsets := 2 + pick(r, []float64{0.25, 0.3, 0.25, 0.12, 0.08})
	for k := range nsets {
		c.adsets = append(c.adsets, p.buildAdSet(a, c, t, k, v, ids, r))
	}
	return c
}

// schedule sets the campaign's dates, delivery days and status from its kind, and
// returns the year to name it by. Every campaign delivers on at least one day of
// the data; ACTIVE ones deliver through the last day.
func (p *plan) schedule(c *campaignPlan, a *accountPlan, t template, r *rand.Rand) int {
	days := a.lastDay + 1 // days the account can deliver on
	var start, end int    // day indices; end is inclusive and may lie past the data
	ongoing := false
	year := 0
	kind := t.kind
	if w, ok := windows[kind]; ok {
		// A seasonal flight in one of the years the data overlaps.
		var fits []int
		for y := p.dates[0].Year() - 1; y <= p.date(days-1).Year()+1; y++ {
			s, e := w(y)
			if p.dayIndex(e) >= 0 && p.dayIndex(s) < days {
				fits = append(fits, y)
			}
		}
		if len(fits) > 0 {
			year = fits[r.IntN(len(fits))]
			s, e := w(year)
			start, end = p.dayIndex(s)-r.IntN(4), p.dayIndex(e)
		} else {
			kind = "test"
		}
	}
	switch kind {
	case "test":
		start = r.IntN(days+7) - 10
		end = max(start+7+r.IntN(39), r.IntN(7))
	case "evergreen":
		if c.idx == 0 || r.Float64() < 0.35 {
			start = -1 - r.IntN(500) // launched before the data begins
		} else {
			start = r.IntN(max(1, days*9/10))
		}
		end = start + int(math.Max(14, 120*lognormal(r, 0.8)))
		if end < 7 {
			end = 7 + r.IntN(60)
		}
		// Evergreen campaigns seldom have an end date: they run until paused.
		ongoing = c.idx == 0 || r.Float64() < 0.45 || end >= days
	}
	if a.spec.closed && (ongoing || end > a.lastDay) {
		ongoing, end = false, a.lastDay-r.IntN(3)
	}
	if start > end {
		start = end - 7
	}
	c.StartDate = p.date(start)
	c.first, c.last = max(start, 0), a.lastDay
	c.startsInside = start >= 0
	if !ongoing {
		c.last = min(end, a.lastDay)
		c.EndDate = p.date(end)
	}
	last := p.cfg.Days - 1
	switch {
	case ongoing || end >= last:
		c.Status = campaignActive
	case last-end <= 45 || r.Float64() < 0.2:
		c.Status = campaignPaused
	default:
		c.Status = campaignArchived
	}
	if year == 0 {
		year = p.date(c.first + (c.last-c.first)/2).Year()
	}
	return year
}

// campaignPerf is the objective's benchmark adjusted for the campaign's audience and
// its own creative quality.
func campaignPerf(b profile, t template, r *rand.Rand) profile {
	q := b
	q.cpm *= lognormal(r, 0.25)
	q.ctr *= lognormal(r, 0.3)
	q.cvr *= lognormal(r, 0.35)
	q.aov *= lognormal(r, 0.2)
	if t.retarget {
		q.cpm *= 1.5
		q.ctr *= 1.4
		q.cvr *= 2.5
	}
	if t.brand {
		q.cpm *= 0.8
		q.ctr *= 2
		q.cvr *= 1.6
	}
	q.ctr = min(q.ctr, 0.3)
	q.cvr = min(q.cvr, 0.5)
	return q
}

// buildAdSet builds a campaign's k-th ad set: its share of the budget, its flight
// (most run with the campaign), its target markets and its ads.
func (p *plan) buildAdSet(a *accountPlan, c *campaignPlan, t template, k int, v vars, ids *rand.Rand, r *rand.Rand) *adsetPlan {
	spec := a.spec
	s := &adsetPlan{weight: lognormal(r, 0.8), first: c.first, last: c.last}
	s.AdSetID = p.newID(ids, spec.Platform, "adset")
	s.CampaignID, s.AccountID = c.CampaignID, c.AccountID
	if k > 0 && c.last-c.first > 28 && r.Float64() < 0.25 {
		// Some ad sets launch late or are switched off early.
		span := c.last - c.first
		if r.IntN(2) == 0 {
			s.first += r.IntN(span * 2 / 3)
		} else {
			s.last -= r.IntN(span * 2 / 3)
		}
	}
	// Targeting: mostly one market, sometimes two or three.
	n := 1
	if len(spec.countries) > 1 {
		n = min(len(spec.countries), 1+pick(r, []float64{0.7, 0.22, 0.08}))
	}
	for len(s.countries) < n {
		i := pick(r, spec.cweights)
		if !slices.Contains(s.countries, spec.countries[i]) {
			s.countries = append(s.countries, spec.countries[i])
			s.cweights = append(s.cweights, spec.cweights[i]*lognormal(r, 0.3))
		}
	}
	var total float64
	for _, w := range s.cweights {
		total += w
	}
	for i := range s.cweights {
		s.cweights[i] /= total
	}

	key := spec.Platform
	switch {
	case spec.Platform == googleAds && t.brand:
		key = "brand"
	case spec.Platform == googleAds:
		key = t.objective
	case spec.spanish && t.retarget:
		key = "es-rt"
	case spec.spanish:
		key = "es"
	case spec.Platform == metaAds && t.retarget:
		key = "meta-rt"
	}
	names := adsetNames[key]
	cats := categories[spec.vertical]
	v.cc = strings.Join(s.countries, "+")
	v.cat = cats[r.IntN(len(cats))]
	s.Name = fill(names[r.IntN(len(names))], v)

	nads := 1 + pick(r, []float64{0.3, 0.45, 0.25})
	for i := range nads {
		s.ads = append(s.ads, p.buildAd(spec, c, s, i, v, ids, r))
	}
	return s
}

// buildAd builds an ad set's i-th ad: its share of the ad set, its flight (later ads
// are creative refreshes) and where it runs.
func (p *plan) buildAd(spec *accountSpec, c *campaignPlan, s *adsetPlan, i int, v vars, ids *rand.Rand, r *rand.Rand) *adPlan {
	ad := &adPlan{weight: lognormal(r, 0.7), first: s.first, last: s.last}
	ad.AdID = p.newID(ids, spec.Platform, "ad")
	ad.AdSetID, ad.CampaignID, ad.AccountID = s.AdSetID, s.CampaignID, s.AccountID
	if i > 0 && s.last-s.first > 14 && r.Float64() < 0.4 {
		// Creative refresh: a new ad joins later.
		ad.first += r.IntN((s.last - s.first) / 2)
	}
	key := spec.Platform
	if spec.Platform == googleAds {
		key = c.Objective
	}
	pubs := publishers[key]
	w := make([]float64, len(pubs))
	for k := range pubs {
		w[k] = pubs[k].weight
	}
	ad.pub = &pubs[pick(r, w)]
	names := adNames[key]
	if spec.Platform != googleAds {
		names = adNames[spec.Platform]
	}
	ad.Name = fill(names[r.IntN(len(names))], v)
	return ad
}

// expectedRows estimates the campaign's fact rows for the progress bar: each ad ×
// day × country × device cell has a row when its share of the budget buys at least
// one impression, which for small shares happens with probability ≈ the expected
// impressions (stochastic rounding).
func (c *campaignPlan) expectedRows(fx float64) float64 {
	var n, sw float64
	for _, s := range c.adsets {
		sw += s.weight
	}
	for _, s := range c.adsets {
		var aw float64
		for _, ad := range s.ads {
			aw += ad.weight
		}
		for _, ad := range s.ads {
			if ad.last < ad.first {
				continue
			}
			spend := c.budget * s.weight / sw * ad.weight / aw
			for k := range s.countries {
				for dev, share := range ad.pub.devices {
					imps := spend * s.cweights[k] * share / (c.perf.cpm * fx * deviceCPM[dev]) * 1000
					n += float64(ad.last-ad.first+1) * min(1, imps)
				}
			}
		}
	}
	return n
}

package demo

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Device effects relative to mobile: desktops cost more per impression and convert
// better, which gives "spend by device" questions a real answer.
var (
	deviceCPM = [3]float64{1, 1.25, 0.9}
	deviceCTR = [3]float64{1, 0.85, 0.9}
	deviceCVR = [3]float64{0.8, 1.7, 1.05}
)

// batchSize is how many facts travel together from a generating goroutine to the
// sink; batches are recycled.
const batchSize = 4096

// accountGen generates one account's facts, day by day, and accumulates what reach
// needs (each campaign's daily impressions).
type accountGen struct {
	p     *plan
	a     *accountPlan
	rands []*rand.Rand // one stream per campaign: a campaign's facts do not depend on the others'
	art   *rand.Rand   // the account's dimension artifacts
	imps  [][]int64    // imps[campaign][day], Meta and TikTok only
	batch []Fact
	bd    *breakdownGen // the breakdown sets' rows
	// reports says which measures the account's platform reports (the catalog's
	// Platforms); the others are NotReported.
	reports [catalog.NumMeasures]bool
}

// facts generates the account's facts in date order, handing full batches to emit,
// and returns its reach rows.
func (p *plan) facts(ctx context.Context, a *accountPlan, emit func([]Fact) error, newBatch func() []Fact) ([]reachRow, error) {
	g := &accountGen{p: p, a: a, art: newRand(p.cfg.Seed, tagArtifacts, a.key), batch: newBatch(),
		reports: reportedMeasures(a.spec.Platform)}
	g.bd = newBreakdownGen(g)
	withReach := a.spec.Platform != googleAds
	for _, c := range a.campaigns {
		g.rands = append(g.rands, newRand(p.cfg.Seed, tagFacts, a.key, uint64(c.idx)))
		if withReach {
			g.imps = append(g.imps, make([]int64, p.cfg.Days))
		}
	}
	for d := range p.cfg.Days {
		if d%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		g.day(d)
		if len(g.batch) >= batchSize {
			if err := emit(g.batch); err != nil {
				return nil, err
			}
			g.batch = newBatch()
		}
	}
	if len(g.batch) > 0 {
		if err := emit(g.batch); err != nil {
			return nil, err
		}
	}
	if !withReach {
		return nil, nil
	}
	return p.reach(a, g.imps), nil
}

// day appends day d's rows: every delivering ad × country × device, then the
// day's dimension artifacts, then the breakdown sets' rows made from them.
func (g *accountGen) day(d int) {
	p, a, spec := g.p, g.a, g.a.spec
	date := p.dates[d]
	wd := weekly[spec.Platform][date.Weekday()]
	dem := demand(date, spec.spanish)
	trend := math.Pow(1+spec.growth, float64(d-p.cfg.Days+1)/365)
	cpmSeason := 1 + 0.35*(dem-1)
	cvrSeason := math.Max(0.7, 1+0.2*(dem-1))
	aovSeason := 1.0
	if date.Month() == 12 {
		aovSeason = 1.1
	}
	start := len(g.batch)
	for ci, c := range a.campaigns {
		if d < c.first || d > c.last {
			continue
		}
		r := g.rands[ci]
		spend := c.budget * dem * wd * trend * lognormal(r, 0.18)
		if c.startsInside && d-c.first < 5 {
			spend *= 0.4 + 0.12*float64(d-c.first) // learning phase
		}
		var sw float64
		for _, s := range c.adsets {
			if d >= s.first && d <= s.last {
				sw += s.weight
			}
		}
		var campImps int64
		for _, s := range c.adsets {
			if d < s.first || d > s.last {
				continue
			}
			sSpend := spend * s.weight / sw * lognormal(r, 0.1)
			var aw float64
			for _, ad := range s.ads {
				if d >= ad.first && d <= ad.last {
					aw += ad.weight
				}
			}
			for _, ad := range s.ads {
				if d < ad.first || d > ad.last {
					continue
				}
				aSpend := sSpend * ad.weight / aw
				for k, country := range s.countries {
					kSpend := aSpend * s.cweights[k]
					for dev, share := range ad.pub.devices {
						if share == 0 {
							continue
						}
						f := g.row(r, c, kSpend*share, dev, cpmSeason, cvrSeason, aovSeason)
						if f == nil {
							continue
						}
						f.Date, f.AccountID, f.CampaignID, f.AdSetID, f.AdID = date, c.AccountID, c.CampaignID, s.AdSetID, ad.AdID
						f.Country, f.Device, f.PublisherPlatform = country, devices[dev], ad.pub.name
						campImps += int64(f.Measures[catalog.Impressions])
					}
				}
			}
		}
		if g.imps != nil {
			g.imps[ci][d] = campImps
		}
	}
	g.artifacts(d, start)
	g.bd.day(d, start)
	if spec.zero {
		for i := start; i < len(g.batch); i++ {
			f := &g.batch[i]
			for m := range f.Measures {
				if f.Measures[m] != NotReported {
					f.Measures[m] = 0
				}
			}
		}
	}
}

// row appends one fact with the metrics that spend (in the account's currency)
// buys and returns it for the caller to fill in the dimensions, or returns nil when
// the spend buys no impression: platforms do not report empty rows. The returned
// pointer is only valid until the next append.
func (g *accountGen) row(r *rand.Rand, c *campaignPlan, spend float64, dev int, cpmSeason, cvrSeason, aovSeason float64) *Fact {
	spec := g.a.spec
	perf := &c.perf
	cpm := perf.cpm * spec.fx * cpmSeason * deviceCPM[dev] * lognormal(r, 0.1)
	imps := stochRound(r, spend/cpm*1000)
	if imps <= 0 {
		return nil
	}
	g.batch = append(g.batch, Fact{})
	f := &g.batch[len(g.batch)-1]
	m := &f.Measures
	m[catalog.Spend] = float64(cents(spend))
	m[catalog.Impressions] = float64(imps)
	clicks := stochRound(r, float64(imps)*math.Min(1, perf.ctr*deviceCTR[dev]*lognormal(r, 0.15)))
	m[catalog.Clicks] = float64(clicks)
	m[catalog.LinkClicks] = NotReported
	if g.reports[catalog.LinkClicks] {
		m[catalog.LinkClicks] = float64(stochRound(r, float64(clicks)*perf.linkShare))
	}
	cvr := math.Min(1, perf.cvr*cvrSeason*deviceCVR[dev])
	var conv float64
	if spec.Platform == googleAds {
		// Google attributes fractional conversions (data-driven attribution); we keep
		// quarters so that every sum is exact in float64.
		conv = float64(stochRound(r, float64(clicks)*cvr*4)) / 4
	} else {
		conv = float64(stochRound(r, float64(clicks)*cvr))
	}
	m[catalog.Conversions] = conv
	if conv > 0 {
		m[catalog.ConversionValue] = float64(cents(conv * perf.aov * aovSeason * spec.fx * lognormal(r, 0.25)))
	}
	if perf.views > 0 {
		m[catalog.VideoViews] = float64(stochRound(r, float64(imps)*perf.views))
	}
	g.completions(m)
	return f
}

// completions sets the views watched to the end from the video views, on the
// platforms that report them (NotReported elsewhere). It draws no random
// number, so adding it left every other demo figure as it was.
func (g *accountGen) completions(m *[catalog.NumMeasures]float64) {
	m[catalog.VideoViewsP100] = NotReported
	if g.reports[catalog.VideoViewsP100] {
		m[catalog.VideoViewsP100] = math.Floor(m[catalog.VideoViews] * videoCompletion[g.a.spec.Platform])
	}
}

// reportedMeasures says which measures a platform reports: those whose metric
// lists the platform in the catalog.
func reportedMeasures(platform string) [catalog.NumMeasures]bool {
	var out [catalog.NumMeasures]bool
	for m, f := range catalog.Measures() {
		out[m] = f.HasPlatform(platform)
	}
	return out
}

// artifacts appends day d's rows with empty dimensions — what APIs return for
// deleted objects, unattributed spend or pagination glitches — with small metrics.
// There are about artifactRate of the account's rows, and only on days it delivers.
func (g *accountGen) artifacts(d, start int) {
	n := len(g.batch) - start
	if n == 0 {
		return
	}
	r, spec := g.art, g.a.spec
	count := stochRound(r, float64(n)*g.a.artifactRate/(1-g.a.artifactRate))
	for range count {
		src := g.batch[start+r.IntN(n)] // a real row of the day to borrow dimensions from
		f := Fact{Date: src.Date, AccountID: src.AccountID}
		switch x := r.Float64(); {
		case x < 0.5: // account-level leftovers: every dimension empty
		case x < 0.75: // campaign known, the rest lost
			f.CampaignID = src.CampaignID
		default: // object known, country and device unknown
			f.CampaignID, f.AdSetID, f.AdID, f.PublisherPlatform = src.CampaignID, src.AdSetID, src.AdID, src.PublisherPlatform
		}
		m := &f.Measures
		imps := 1 + r.Int64N(300)
		m[catalog.Impressions] = float64(imps)
		m[catalog.Spend] = float64(cents(float64(imps) / 1000 * 6 * spec.fx * between(r, 0.5, 1.5)))
		clicks := stochRound(r, float64(imps)*0.008)
		m[catalog.Clicks] = float64(clicks)
		m[catalog.LinkClicks] = NotReported
		if g.reports[catalog.LinkClicks] {
			m[catalog.LinkClicks] = float64(stochRound(r, float64(clicks)*0.6))
		}
		if spec.Platform != googleAds {
			m[catalog.VideoViews] = float64(stochRound(r, float64(imps)*0.1))
		}
		g.completions(m)
		g.batch = append(g.batch, f)
	}
}

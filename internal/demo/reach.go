package demo

import (
	"math"
	"time"
)

// Reach counts distinct people, so it cannot be summed; platforms report it per
// period. We store it for the account and each campaign, daily, weekly (ISO weeks)
// and monthly, with the invariants real reach satisfies:
//
//   - a day's reach ≤ that day's impressions;
//   - a period's reach is between the largest daily reach in it and the sum of them;
//   - an account's reach (a day or a period) is between its largest campaign's and
//     the sum of its campaigns';
//   - a period never has less reach than a shorter period inside it.
//
// A campaign's daily reach is impressions / frequency. Everything coarser is
// max + (sum − max) × u of the daily reach it covers, with one u per account: using
// the same u for the account and its campaigns and for every grain is what keeps the
// last three invariants (the formula grows with both max and sum). Only Meta and
// TikTok accounts have reach.

// Reach levels and grains, as stored.
const (
	LevelAccount  = "account"
	LevelCampaign = "campaign"
	GrainDaily    = "daily"
	GrainWeekly   = "weekly"
	GrainMonthly  = "monthly"
)

// periods maps each day of the data to its ISO week and its month.
type periods struct {
	starts []time.Time // period start of each period index
	of     []int       // period index of each day
}

func (p *plan) periods(start func(time.Time) time.Time) periods {
	var ps periods
	for _, t := range p.dates {
		s := start(t)
		if n := len(ps.starts); n == 0 || !ps.starts[n-1].Equal(s) {
			ps.starts = append(ps.starts, s)
		}
		ps.of = append(ps.of, len(ps.starts)-1)
	}
	return ps
}

// coarse computes the reach of each period from a daily series (0 = no delivery),
// -1 for periods without delivery.
func coarse(daily []int64, ps periods, u float64) []int64 {
	maxs := make([]int64, len(ps.starts))
	sums := make([]int64, len(ps.starts))
	for d, r := range daily {
		if r > 0 {
			i := ps.of[d]
			maxs[i] = max(maxs[i], r)
			sums[i] += r
		}
	}
	out := make([]int64, len(ps.starts))
	for i := range out {
		if sums[i] == 0 {
			out[i] = -1
			continue
		}
		out[i] = combine(maxs[i], sums[i], u)
	}
	return out
}

// combine is the reach of a union of audiences whose largest is mx and whose sizes
// add up to sum, given their overlap u (0: all the same people, 1: disjoint).
func combine(mx, sum int64, u float64) int64 {
	return mx + int64(math.Floor(float64(sum-mx)*u))
}

// reachRow is a Reach row in a quarter of the memory: an account's rows wait for
// every fact of the dataset to be emitted first, and at a large Scale they add up.
type reachRow struct {
	reach    int64
	start    int32 // the period's start, as a day index (a week may start before the data)
	campaign int32 // index in the account's campaigns; -1 for the account itself
	grain    uint8 // index in grainNames
}

var grainNames = [...]string{GrainDaily, GrainWeekly, GrainMonthly}

// reachOf returns the account's reach row rr in full.
func (p *plan) reachOf(a *accountPlan, rr reachRow) Reach {
	out := Reach{Level: LevelAccount, ObjectID: a.spec.AccountID, AccountID: a.spec.AccountID,
		Grain: grainNames[rr.grain], PeriodStart: p.date(int(rr.start)), Reach: rr.reach}
	if rr.campaign >= 0 {
		out.Level, out.ObjectID = LevelCampaign, a.campaigns[rr.campaign].CampaignID
	}
	return out
}

// reach returns the account's reach rows: the account's daily, weekly and monthly
// rows, then each campaign's, in campaign order.
func (p *plan) reach(a *accountPlan, imps [][]int64) []reachRow {
	days := p.cfg.Days
	r := newRand(p.cfg.Seed, tagReach, a.key)
	grains := []struct {
		grain uint8
		ps    periods
	}{{1, p.periods(isoMonday)}, {2, p.periods(monthStart)}}

	// Campaigns' daily reach: impressions over a frequency that wobbles by day.
	daily := make([][]int64, len(a.campaigns))
	for ci := range a.campaigns {
		daily[ci] = make([]int64, days)
		for d, n := range imps[ci] {
			if n > 0 {
				f := math.Max(1, a.campaigns[ci].freq*lognormal(r, 0.06))
				daily[ci][d] = max(1, int64(float64(n)/f))
			}
		}
	}
	// The account's day: its campaigns overlap by reachV (jittered per day).
	acct := make([]int64, days)
	for d := range days {
		var mx, sum int64
		for ci := range daily {
			mx = max(mx, daily[ci][d])
			sum += daily[ci][d]
		}
		if sum > 0 {
			acct[d] = combine(mx, sum, a.reachV*between(r, 0.9, 1.1))
		}
	}

	var out []reachRow
	emit := func(campaign int, grain uint8, t time.Time, v int64) {
		if a.spec.zero {
			v = 0
		}
		out = append(out, reachRow{reach: v, start: int32(p.dayIndex(t)), campaign: int32(campaign), grain: grain})
	}
	for d, v := range acct {
		if v > 0 {
			emit(-1, 0, p.dates[d], v)
		}
	}
	for _, g := range grains {
		acc := coarse(acct, g.ps, a.reachU)
		// The account's period reach never exceeds the sum of its campaigns' (the
		// floors of the per-campaign values could otherwise push it past by a unit).
		bound := make([]int64, len(acc))
		for ci := range daily {
			for i, v := range coarse(daily[ci], g.ps, a.reachU) {
				if v > 0 {
					bound[i] += v
				}
			}
		}
		for i, v := range acc {
			if v > 0 {
				emit(-1, g.grain, g.ps.starts[i], min(v, bound[i]))
			}
		}
	}
	for ci := range a.campaigns {
		for d, v := range daily[ci] {
			if v > 0 {
				emit(ci, 0, p.dates[d], v)
			}
		}
		for _, g := range grains {
			for i, v := range coarse(daily[ci], g.ps, a.reachU) {
				if v > 0 {
					emit(ci, g.grain, g.ps.starts[i], v)
				}
			}
		}
	}
	return out
}

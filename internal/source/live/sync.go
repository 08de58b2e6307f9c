package live

import (
	"context"
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// A sync (docs/sync.md) asks each account for everything a warehouse stores
// over some days, so that the warehouse then answers every query the live
// source answers: every breakdown set the platform reports, at the level
// and with the breakdowns it is stored with, daily, with every stored metric
// the platform reports, and the reach of every day, ISO week and month that
// ends in the days, per account and per campaign. The plans are the live
// source's own, compiled by the same connectors: a sync and a query read a
// platform alike.

// nameDimensions are the dimensions whose values the warehouse keeps about
// the objects of each level (the connectors record them for a plan that
// uses them).
var nameDimensions = map[catalog.Level][]string{
	catalog.LevelCampaign: {"campaign_id", "campaign_name", "campaign_objective", "campaign_status"},
	catalog.LevelAdSet:    {"adset_id", "adset_name"},
	catalog.LevelAd:       {"ad_id", "ad_name"},
}

// SyncPlans are the plans whose rows together are everything a warehouse
// stores for one of platform's accounts from first to last (inclusive).
func SyncPlans(platform string, first, last time.Time) ([]*Plan, error) {
	if last.Before(first) {
		return nil, fmt.Errorf("sync range %s … %s is reversed", first.Format(time.DateOnly), last.Format(time.DateOnly))
	}
	var plans []*Plan
	for _, s := range catalog.PlatformSets(platform) {
		p := &Plan{Platform: platform, Start: first, End: last, Level: s.Level, ObjectLevel: s.Level,
			Set: s, Breakdowns: s.Dimensions, Grain: fit.Daily}
		for l := catalog.LevelCampaign; l <= s.Level; l++ {
			p.Dimensions = append(p.Dimensions, nameDimensions[l]...)
		}
		p.Dimensions = append(p.Dimensions, s.Dimensions...)
		for _, f := range catalog.Measures() {
			if f.HasPlatform(platform) && s.HasMetric(f.Name) {
				p.Measures = append(p.Measures, f.Name)
			}
		}
		if len(p.Measures) == 0 {
			continue // a set of metrics the platform does not report
		}
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		return nil, fmt.Errorf("no breakdown set of %s has metrics to sync", platform)
	}
	if !reportsReach(platform) {
		return plans, nil
	}
	for _, level := range []catalog.Level{catalog.LevelAccount, catalog.LevelCampaign} {
		for _, g := range []fit.Grain{fit.Daily, fit.Weekly, fit.Monthly} {
			from, to, ok := periodsEnding(g, first, last)
			if !ok {
				continue
			}
			start := first
			if from.Before(start) {
				start = from
			}
			p := &Plan{Platform: platform, Start: start, End: last, Level: level, ObjectLevel: level,
				Set: deliverySet, Measures: []string{"impressions"}, Grain: g, ReachOnly: true,
				Reach: &Reach{Level: level, Grain: g, First: from, Last: to}}
			for l := catalog.LevelCampaign; l <= level; l++ {
				p.Dimensions = append(p.Dimensions, nameDimensions[l][:2]...) // IDs and names
			}
			plans = append(plans, p)
		}
	}
	return plans, nil
}

// periodsEnding are the first and last starts of the periods of grain g whose
// last day lies in [first, last]; false when none does. The chunk holding a
// period's last day owns its reach (importer.SyncReachPeriods).
func periodsEnding(g fit.Grain, first, last time.Time) (from, to time.Time, ok bool) {
	switch g {
	case fit.Daily:
		return first, last, true
	case fit.Weekly:
		// The ISO week ending on Sunday d starts on d-6.
		for from = first.AddDate(0, 0, -6); from.Weekday() != time.Monday; from = from.AddDate(0, 0, 1) {
		}
		to = last.AddDate(0, 0, -6)
		for to.Weekday() != time.Monday {
			to = to.AddDate(0, 0, -1)
		}
	case fit.Monthly:
		// first's own month ends on or after first.
		from = time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC)
		to = time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, time.UTC)
		if !to.AddDate(0, 1, -1).Equal(last) {
			to = to.AddDate(0, -1, 0)
		}
	default:
		return time.Time{}, time.Time{}, false
	}
	return from, to, !to.Before(from)
}

// FetchPlans has c fetch every plan for one account and returns the rows,
// each plan's in a batch of its own (so that the caller can tell which plan
// a name came from), or the account's error: nil, ctx's error, or a
// *source.AccountError. Requests count themselves with source.CountCall.
func FetchPlans(ctx context.Context, c Connector, plans []*Plan, a ads.Account) ([]*Batch, error) {
	out := make([]*Batch, 0, len(plans))
	for _, p := range plans {
		fetch, err := c.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: planning the %s rows: %w", c.Platform(), p.Set.Label, err)
		}
		if fetch == nil {
			continue
		}
		b := newBatch()
		if err := fetch(ctx, a, b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

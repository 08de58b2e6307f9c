// Package demo generates adsmcp's deterministic demo dataset (docs/contract.md §9): 14
// synthetic ad accounts on Meta, Google and TikTok (and replicas of them above
// Scale 1, for benchmarks) with two years of daily facts at the finest level (date ×
// ad × country × device), and stored reach per level and grain. It knows nothing of
// any database: it hands every row to a Sink, in a fixed order, so the same Config
// always yields the same sequence of calls — a warehouse loaded from it is
// byte-identical, and tests can hash the stream.
//
// The data is made to exercise the product, not only to look plausible: more
// accounts than the 10-account guardrail, EUR and ARS money next to USD, heavy-tailed
// spend, campaigns that start and stop, seasonal peaks, 1–3% of rows with empty
// dimensions (the API artifacts the fit pipeline filters), one account whose metrics
// are all zero (a token without the right scopes), one closed account, Google without
// link clicks or reach, and reach that is consistent across grains and levels.
// Besides the delivery rows, each campaign-day has the rows of the platform's other
// breakdown sets (age × gender, placement, conversion action: breakdowns.go), which
// sum exactly to the delivery rows.
package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// GeneratorVersion changes whenever the generated data changes for the same Config,
// so a stored warehouse can tell it was made by an older generator.
const GeneratorVersion = "4"

// DefaultSeed is the seed of the standard demo dataset, so that every installation
// anchored on the same day has the same data (and documentation can quote it).
const DefaultSeed uint64 = 20240601

// DefaultDays is two years of daily data.
const DefaultDays = 730

// NotReported is the value of a measure a fact's platform does not report (link clicks on Google and TikTok).
const NotReported = ads.NotReported

// Config chooses the dataset. Same Config ⇒ same data.
type Config struct {
	// Anchor is the day after the data ends: the data covers Days days ending the day
	// before Anchor. Only its calendar date (in its own location) counts; it is
	// normalized to UTC midnight. Required: a zero Anchor is an error rather than a
	// silent time.Now(), which would make the data depend on the clock.
	Anchor time.Time
	Seed   uint64
	// Days defaults to DefaultDays when 0.
	Days int
	// Scale is the size of the dataset, in (0, MaxScale]; 0 means 1, the standard
	// dataset (~5.5M fact rows: 3.1M delivery, 2.4M of the other breakdown sets). Up
	// to 1 it is the fraction of each account's campaigns to generate: tests use
	// 0.03–0.1, and a smaller scale yields a subset
	// of the full dataset's campaigns, ad sets and ads (same IDs and names). Above 1
	// it adds replica accounts, for benchmarks: each whole unit beyond 1 another 14
	// accounts shaped like the originals (named "Replica 2 - Lumen Outdoor US", …)
	// with their own IDs and data, and a fractional part f a last such set keeping
	// a fraction f of its campaigns (replicas.go). Scale 2 is ~11.6M fact rows (6.6M
	// delivery), 3.2 ~18.1M (10.2M); the Scale 1 dataset is the first 14 accounts of
	// every bigger one.
	Scale float64
}

// The warehouse's row types live in package ads; these names keep the
// generator's code and its users readable.
type (
	Campaign = ads.Campaign
	AdSet    = ads.AdSet
	Ad       = ads.Ad
	Fact     = ads.Fact
	Reach    = ads.Reach
	Sink     = ads.Sink
)

// normalized returns cfg with defaults applied, or an error for values that would
// otherwise be silently misread.
func (cfg Config) normalized() (Config, error) {
	if cfg.Anchor.IsZero() {
		return cfg, errors.New("demo: Config.Anchor is required")
	}
	y, m, d := cfg.Anchor.Date()
	cfg.Anchor = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if cfg.Days == 0 {
		cfg.Days = DefaultDays
	}
	if cfg.Days < 1 || cfg.Days > 3660 {
		return cfg, fmt.Errorf("demo: Config.Days must be between 1 and 3660, got %d", cfg.Days)
	}
	if cfg.Scale == 0 {
		cfg.Scale = 1
	}
	if !(cfg.Scale > 0 && cfg.Scale <= MaxScale) {
		return cfg, fmt.Errorf("demo: Config.Scale must be in (0, %d] (a fraction of the campaigns up to 1, replica accounts above), got %g", MaxScale, cfg.Scale)
	}
	return cfg, nil
}

// Generate produces the dataset described by cfg into sink. progress, if not nil, is
// called from the calling goroutine after each batch of facts with the facts emitted
// so far and an estimate of the total (never below the count so far).
func Generate(ctx context.Context, cfg Config, sink Sink, progress func(doneFacts, estimatedTotal int64)) error {
	cfg, err := cfg.normalized()
	if err != nil {
		return err
	}
	p := newPlan(cfg)
	if err := p.emitStructure(sink); err != nil {
		return err
	}
	return p.emitFactsAndReach(ctx, sink, progress)
}

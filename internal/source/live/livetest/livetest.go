// Package livetest runs every platform's fake API on loopback with a
// connector over each, as tests of the live source, the sync and the
// oracle need them: one place that knows how each connector is pointed at
// its fake.
package livetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

// Fakes are the three fake APIs, serving the demo data of the test
// warehouse (duckdbtest.Config), and a connector over each.
type Fakes struct {
	Meta   *metatest.Server
	Google *googleadstest.Server
	TikTok *tiktoktest.Server
	// Connectors are Meta's, Google's and TikTok's, in that order.
	Connectors []live.Connector
}

// Config configures the fakes (zero: the defaults).
type Config struct {
	Meta   metatest.Config
	Google googleadstest.Config
	TikTok tiktoktest.Config
}

// Start starts the fakes, closed when tb ends, and the connectors over them
// (no pacing: the fakes answer at once; retries and polls of report runs after a millisecond).
func Start(tb testing.TB, cfg Config) *Fakes {
	tb.Helper()
	f := &Fakes{Meta: metatest.NewWith(tb, cfg.Meta), Google: googleadstest.Start(tb, cfg.Google), TikTok: tiktoktest.NewWith(tb, cfg.TikTok)}
	mc, err := meta.New(meta.Options{BaseURL: f.Meta.URL, AccessToken: f.Meta.Token(), RequestsPerSecond: 5000, RetryBaseDelay: time.Millisecond,
		PollInterval: time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	gc, err := googleads.New(googleads.Options{BaseURL: f.Google.URL, TokenURL: f.Google.TokenURL, ClientID: googleadstest.ClientID,
		ClientSecret: googleadstest.ClientSecret, RefreshToken: googleadstest.RefreshToken, RequestsPerSecond: -1, RetryBaseDelay: time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	tc, err := tiktok.New(tiktok.Options{BaseURL: f.TikTok.URL, AccessToken: f.TikTok.Token(), AppID: f.TikTok.AppID(), AppSecret: f.TikTok.AppSecret(),
		RequestsPerSecond: 5000, RetryBaseDelay: time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	f.Connectors = []live.Connector{mc, gc, tc}
	return f
}

// Source is the live source over the fakes' connectors.
func (f *Fakes) Source() *live.Source { return live.New(nil, f.Connectors...) }

// Syncable are the platforms whose every sync plan their connector
// compiles (live.SyncPlans), in the connectors' order, and why each other
// platform cannot be synced yet: a test or benchmark syncs the first and
// says the second, so it covers a platform as soon as its sync works.
func (f *Fakes) Syncable() (platforms []string, refused map[string]error) {
	refused = map[string]error{}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range f.Connectors {
		plans, err := live.SyncPlans(c.Platform(), day, day)
		for _, p := range plans {
			if err == nil {
				_, err = c.Compile(p)
			}
		}
		if err != nil {
			refused[c.Platform()] = err
			continue
		}
		platforms = append(platforms, c.Platform())
	}
	return platforms, refused
}

// Requests is how many requests the three fakes received so far (Google's
// token endpoint included): what a call or a sync cost the platforms.
func (f *Fakes) Requests() int {
	return len(f.Meta.Requests()) + len(f.Google.Requests()) + f.Google.TokenRequests() + len(f.TikTok.Requests())
}

// Accounts are the accounts of platforms, listed by their connectors, taken
// in turn from each platform (one of each, then the next of each…) up to n:
// a selection that spreads over every platform given.
func (f *Fakes) Accounts(ctx context.Context, tb testing.TB, platforms []string, n int) []ads.Account {
	tb.Helper()
	var lists [][]ads.Account
	for _, c := range f.Connectors {
		if !slices.Contains(platforms, c.Platform()) {
			continue
		}
		accts, err := c.Accounts(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		lists = append(lists, accts)
	}
	var out []ads.Account
	for i := 0; len(out) < n; i++ {
		took := false
		for _, l := range lists {
			if i < len(l) && len(out) < n {
				out = append(out, l[i])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// Package livetest runs every platform's fake API on loopback with a
// connector over each, as tests of the live source, the sync and the
// oracle need them: one place that knows how each connector is pointed at
// its fake.
package livetest

import (
	"testing"
	"time"

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

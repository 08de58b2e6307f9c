package syncer

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// stubConn is a platform whose every report is one row per day per set and
// reach per period, each request one call: the orchestration's tests need
// a connector whose requests they can count and fail at will, apart from
// any real platform's mapping (the fakes' tests check those).
type stubConn struct {
	platform string
	accounts []ads.Account
	workers  int

	mu       sync.Mutex
	requests []stubRequest
	// fail, when set, is asked before each request: an error fails it.
	fail func(r stubRequest) error
	// listErr fails the listing of the accounts.
	listErr error
	// revised are days whose figures the platform has revised since: their
	// value is multiplied.
	revised map[time.Time]float64
}

type stubRequest struct {
	Account     string
	Set         string
	ReachOnly   bool
	First, Last time.Time
}

func newStub(platform string, n int) *stubConn {
	c := &stubConn{platform: platform, workers: 2}
	for i := range n {
		c.accounts = append(c.accounts, ads.Account{AccountID: fmt.Sprintf("%s-%d", platform, i+1), Platform: platform,
			AccountName: fmt.Sprintf("Account %d", i+1), Currency: "USD", Timezone: "UTC", Status: "ACTIVE"})
	}
	return c
}

func (c *stubConn) Platform() string { return c.platform }
func (c *stubConn) Workers() int     { return c.workers }

func (c *stubConn) Accounts(context.Context) ([]ads.Account, error) {
	if c.listErr != nil {
		return nil, c.listErr
	}
	return c.accounts, nil
}

func (c *stubConn) Compile(p *live.Plan) (live.AccountFetch, error) {
	return func(ctx context.Context, a ads.Account, b *live.Batch) error {
		r := stubRequest{Account: a.AccountID, Set: p.Set.Key, ReachOnly: p.ReachOnly, First: p.Start, Last: p.End}
		source.CountCall(ctx)
		c.mu.Lock()
		c.requests = append(c.requests, r)
		fail := c.fail
		c.mu.Unlock()
		if fail != nil {
			if err := fail(r); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.ReachOnly {
			for d := p.Reach.First; !d.After(p.Reach.Last); d = d.AddDate(0, 0, 1) {
				b.Reach(ads.Reach{Level: "account", ObjectID: a.AccountID, AccountID: a.AccountID, Grain: string(p.Reach.Grain), PeriodStart: d, Reach: 100})
			}
			return nil
		}
		b.Campaign(ads.Campaign{CampaignID: "c1", AccountID: a.AccountID, Name: "Campaign 1"})
		c.mu.Lock()
		defer c.mu.Unlock()
		for d := p.Start; !d.After(p.End); d = d.AddDate(0, 0, 1) {
			f := ads.Fact{Date: d, AccountID: a.AccountID, CampaignID: "c1", Breakdown: p.Set.Key}
			f.Measures[catalog.MustLookup(p.Measures[0]).Storage.Measure] = stubValue(d) * cmp.Or(c.revised[d], 1)
			b.Facts(f)
		}
		return nil
	}, nil
}

// stubValue is a day's figure before any revision.
func stubValue(d time.Time) float64 { return float64(d.Day()) }

// requestsOf are the requests made so far, and forgets them.
func (c *stubConn) take() []stubRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.requests
	c.requests = nil
	return out
}

// denied is the error a platform gives an account the token may not read.
func denied(account string) error {
	return &source.AccountError{AccountID: account, Platform: "meta_ads", Kind: outcome.PermissionDenied,
		Cause: "the token lacks ads_read on the account", Fix: "grant ads_read and reconnect"}
}

package mcpserver

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// DefaultAccountsTTL is how long an account list is reused before the source is
// asked again. Every query call needs the list (to resolve and check
// account_ids); reading it each time was a fifth of a small query's time, and
// accounts are added or closed rarely: a minute's delay is harmless.
const DefaultAccountsTTL = time.Minute

// accountCache answers Accounts from the last list for ttl, passes queries
// through, and remembers the last list it got, so that a timeout answer can
// normalize the query (and suggest narrower ones) without asking a source that
// is not answering.
type accountCache struct {
	src source.Source
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	last    []ads.Account
	fetched time.Time
}

var _ source.Source = (*accountCache)(nil)

func (c *accountCache) Accounts(ctx context.Context) ([]ads.Account, error) {
	c.mu.Lock()
	if c.last != nil && c.ttl > 0 && c.now().Sub(c.fetched) < c.ttl {
		accts := slices.Clone(c.last)
		c.mu.Unlock()
		return accts, nil
	}
	c.mu.Unlock()
	accts, err := c.src.Accounts(ctx)
	if err == nil {
		c.mu.Lock()
		c.last, c.fetched = slices.Clone(accts), c.now()
		c.mu.Unlock()
	}
	return accts, err
}

func (c *accountCache) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	return c.src.Query(ctx, q)
}

// Close does nothing: the server does not own its source.
func (c *accountCache) Close() error { return nil }

// known returns the last account list seen (nil before the first).
func (c *accountCache) known() []ads.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

package mcpserver

import (
	"context"
	"slices"
	"sync"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// accountCache passes every call through to the source and remembers the last
// account list it returned, so that a timeout answer can normalize the query
// (and suggest narrower ones) without asking a source that is not answering.
type accountCache struct {
	src source.Source

	mu   sync.Mutex
	last []ads.Account
}

var _ source.Source = (*accountCache)(nil)

func (c *accountCache) Accounts(ctx context.Context) ([]ads.Account, error) {
	accts, err := c.src.Accounts(ctx)
	if err == nil {
		c.mu.Lock()
		c.last = slices.Clone(accts)
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

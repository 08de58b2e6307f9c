package mcpserver

import (
	"context"
	"errors"
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
	// coverage per account ID, reused for ttl like the list (reading it
	// scans the account's facts).
	coverage map[string]cachedCoverage
}

type cachedCoverage struct {
	c       source.Coverage
	has     bool // false: the account has no data at all
	fetched time.Time
}

var (
	_ source.Source         = (*accountCache)(nil)
	_ source.CoverageSource = (*accountCache)(nil)
)

// errNoCoverage: the source cannot say which dates its accounts cover.
var errNoCoverage = errors.New("the source does not report data coverage")

// Coverage answers from the cache what is fresh, asks the source for the rest.
func (c *accountCache) Coverage(ctx context.Context, accountIDs []string) (map[string]source.Coverage, error) {
	cs, ok := c.src.(source.CoverageSource)
	if !ok {
		return nil, errNoCoverage
	}
	out := map[string]source.Coverage{}
	var missing []string
	c.mu.Lock()
	now := c.now()
	for _, id := range accountIDs {
		if e, ok := c.coverage[id]; ok && c.ttl > 0 && now.Sub(e.fetched) < c.ttl {
			if e.has {
				out[id] = e.c
			}
			continue
		}
		missing = append(missing, id)
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := cs.Coverage(ctx, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.coverage == nil {
		c.coverage = map[string]cachedCoverage{}
	}
	for _, id := range missing {
		cov, has := got[id]
		c.coverage[id] = cachedCoverage{c: cov, has: has, fetched: now}
		if has {
			out[id] = cov
		}
	}
	c.mu.Unlock()
	return out, nil
}

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

// RecountsWindows passes on whether the source recounts conversions under
// an asked window (source.WindowRecounter).
func (c *accountCache) RecountsWindows() bool { return !source.StoresOneWindow(c.src) }

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

// Sized passes on the cached source's Sizer (source.SizedSource): counting
// and summarizing a query's rows is never cached.
func (c *accountCache) Sized() source.Sizer { return source.SizerOf(c.src) }

package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/accountlist"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// DefaultAccountsTTL is how old the source's account list gets before a call
// refreshes it in the background (accountlist.DefaultRefreshAfter, which says
// why an hour).
const DefaultAccountsTTL = accountlist.DefaultRefreshAfter

// WarehouseAccountsTTL is DefaultAccountsTTL for a warehouse: it lists its
// accounts with one cheap query, and an account just loaded should show in
// "every account" within the minute it always did.
const WarehouseAccountsTTL = time.Minute

// coverageTTL is how long an account's data coverage is reused: it changes
// with every load or sync into a warehouse, and reading it is one cheap
// query, so it keeps the minute the account list had before it was kept
// fresh in the background.
const coverageTTL = time.Minute

// accountCache answers Accounts from the list accountlist keeps fresh,
// reuses coverage for coverageTTL, passes queries through, and refreshes the
// list when a query fails for want of permission (an account closed or
// unshared). The list is the whole source's: each principal sees it through
// scoped, which filters it, so one shared list never shows a tenant
// another's accounts.
type accountCache struct {
	src  source.Source
	list *accountlist.List
	// coverageTTL: negative means coverage is asked on every call.
	coverageTTL time.Duration
	now         func() time.Time

	mu sync.Mutex
	// coverage per account ID, reused for coverageTTL (reading it scans the
	// account's facts).
	coverage map[string]cachedCoverage
}

// newAccountCache wraps src; ttl is Config.AccountsTTL (DefaultAccountsTTL
// when 0; negative: the list and coverage are asked on every call).
func newAccountCache(src source.Source, ttl time.Duration, log *slog.Logger) *accountCache {
	if ttl == 0 {
		ttl = DefaultAccountsTTL
	}
	c := &accountCache{src: src, coverageTTL: min(ttl, coverageTTL), now: time.Now}
	c.list = accountlist.New(src.Accounts, accountlist.Options{RefreshAfter: ttl, Logger: log,
		Now: func() time.Time { return c.now() }})
	return c
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
		if e, ok := c.coverage[id]; ok && c.coverageTTL > 0 && now.Sub(e.fetched) < c.coverageTTL {
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

// Accounts is the list, refreshed in the background when it is old
// (accountlist.List.Get).
func (c *accountCache) Accounts(ctx context.Context) ([]ads.Account, error) {
	return c.list.Get(ctx)
}

// accountsKnowing is the list, refreshed first when known says it lacks an
// account a caller names (accountlist.List.Lookup).
func (c *accountCache) accountsKnowing(ctx context.Context, known func([]ads.Account) bool) ([]ads.Account, error) {
	return c.list.Lookup(ctx, known)
}

// RecountsWindows passes on whether the source recounts conversions under
// an asked window (source.WindowRecounter).
func (c *accountCache) RecountsWindows() bool { return !source.StoresOneWindow(c.src) }

// Query passes q on; when an account failed for want of permission — what
// an account closed or no longer shared with the credentials answers — the
// list is refreshed in the background, so that the next call no longer
// offers it (accountlist.List.Suspect bounds how often).
func (c *accountCache) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	tab, err := c.src.Query(ctx, q)
	if deniedAccount(err) {
		c.list.Suspect()
	}
	return tab, err
}

// deniedAccount: err says an account could not be read for want of
// permission.
func deniedAccount(err error) bool {
	var one *source.AccountError
	var some *source.AccountsError
	switch {
	case errors.As(err, &some):
		return slices.ContainsFunc(some.Failed, func(f *source.AccountError) bool { return f.Kind == source.PermissionDenied })
	case errors.As(err, &one):
		return one.Kind == source.PermissionDenied
	}
	return false
}

// Close does nothing: the server does not own its source; stop ends the
// list's refreshing.
func (c *accountCache) Close() error { return nil }

// stop stops refreshing the list (the server's shutdown), waiting for a
// refresh in flight at most until ctx ends.
func (c *accountCache) stop(ctx context.Context) error { return c.list.Close(ctx) }

// known returns the last account list seen (nil before the first), without
// waiting or refreshing: a timeout answer is built from it.
func (c *accountCache) known() []ads.Account { return c.list.Last() }

// Sized passes on the cached source's Sizer (source.SizedSource): counting
// and summarizing a query's rows is never cached.
func (c *accountCache) Sized() source.Sizer { return source.SizerOf(c.src) }

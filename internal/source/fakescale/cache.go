package fakescale

import (
	"fmt"
	"slices"
	"sync"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Accounts is what a fake serves: one dataset T holding every account (the
// tests' default), or a scale's accounts, each account's T built when a
// request needs it, the last few kept.
type Accounts[T any] struct {
	all   T
	list  []ads.Account
	data  *Data
	each  *cache[T]
	light *cache[T] // accounts' data without numbers (WithLight)
}

// Dataset is a fake's data: it lists the accounts it holds.
type Dataset interface{ Accounts() []ads.Account }

// Open serves the platform's accounts at scale, or, when scale is nil, the
// dataset whole gives. build makes one account's data (from Data.Replay).
func Open[T Dataset](scale *Scale, platform string, whole func() (T, error), build func(d *Data, accountID string) (T, error)) (*Accounts[T], error) {
	if scale != nil {
		return scaled(*scale, platform, build)
	}
	all, err := whole()
	if err != nil {
		return nil, fmt.Errorf("the %s fake: %w", platform, err)
	}
	return &Accounts[T]{all: all, list: all.Accounts()}, nil
}

// accountsKept is how many accounts' data a scaled fake keeps built: the
// connectors' workers (4 by default) ask a few accounts at a time.
const accountsKept = 8

// scaled serves the platform's accounts at scale s.
func scaled[T any](s Scale, platform string, build func(d *Data, accountID string) (T, error)) (*Accounts[T], error) {
	d, err := Load(s, platform)
	if err != nil {
		return nil, err
	}
	return &Accounts[T]{list: d.Accounts(), data: d,
		each: newCache(accountsKept, func(id string) (T, error) { return build(d, id) })}, nil
}

// WithLight makes OfLight build an account's data with build, for requests
// that need no numbers (listing an account's settings), so that listing many
// accounts does not build every account's numbers. It returns a.
func (a *Accounts[T]) WithLight(build func(d *Data, accountID string) (T, error)) *Accounts[T] {
	if a.data != nil {
		d := a.data
		a.light = newCache(accountsKept, func(id string) (T, error) { return build(d, id) })
	}
	return a
}

// OfLight is Of for a request that needs no numbers: the account's data
// WithLight builds, when it was given.
func (a *Accounts[T]) OfLight(accountID string) (_ T, ok bool, _ error) {
	if a.light == nil || !a.Has(accountID) {
		return a.Of(accountID)
	}
	v, err := a.light.get(accountID)
	return v, err == nil, err
}

// List are the accounts, in the order the fake lists them.
func (a *Accounts[T]) List() []ads.Account { return a.list }

// Has reports whether the fake has the account.
func (a *Accounts[T]) Has(accountID string) bool {
	if a.data != nil {
		return a.data.Has(accountID)
	}
	return slices.ContainsFunc(a.list, func(x ads.Account) bool { return x.AccountID == accountID })
}

// Of is the data holding the account; ok is false when the fake has no such
// account.
func (a *Accounts[T]) Of(accountID string) (_ T, ok bool, _ error) {
	var zero T
	switch {
	case !a.Has(accountID):
		return zero, false, nil
	case a.data == nil:
		return a.all, true, nil
	}
	v, err := a.each.get(accountID)
	return v, err == nil, err
}

// cache keeps the last few accounts' data, so that the pages and reports of
// one account reuse it while memory holds a few accounts, not all of them.
type cache[T any] struct {
	size  int
	build func(accountID string) (T, error)

	mu   sync.Mutex
	keys []string // least recently used first
	vals map[string]T
}

func newCache[T any](size int, build func(accountID string) (T, error)) *cache[T] {
	return &cache[T]{size: max(size, 1), build: build, vals: map[string]T{}}
}

// get returns the account's data, building it on a miss. Two requests missing
// at once build it twice rather than wait on each other.
func (c *cache[T]) get(accountID string) (T, error) {
	c.mu.Lock()
	if v, ok := c.vals[accountID]; ok {
		c.touch(accountID)
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := c.build(accountID)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.vals[accountID]; !ok && len(c.keys) >= c.size {
		delete(c.vals, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.vals[accountID] = v
	c.touch(accountID)
	return v, nil
}

// touch moves the key to the most recently used end.
func (c *cache[T]) touch(key string) {
	if i := slices.Index(c.keys, key); i >= 0 {
		c.keys = slices.Delete(c.keys, i, i+1)
	}
	c.keys = append(c.keys, key)
}

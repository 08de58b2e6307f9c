// Package accountlist keeps one source's account list fresh without making
// questions wait for it. Every tool call needs the list (to resolve and check
// account_ids), and listing can be costly: Google Ads lists N customers with
// 1 + 2N requests (a customer query and a conversion_action query each), so
// an agency with 200 customers would pay 401 requests before a question each
// time the list expired.
//
// The list is reused, and refreshed in the background once it is older than
// RefreshAfter (stale-while-revalidate: the caller that notices gets the list
// it had, at once). A caller waits only when there is no list yet, when the
// list is older than MaxAge, or when it asks for an account the list does not
// know (Lookup) — and that last refresh is allowed only once the list is
// MinInterval old, so a caller naming unknown accounts cannot make the server
// list more often than once per MinInterval. Concurrent callers share one
// refresh; a failed refresh keeps the last good list and is retried, on
// demand, after a backoff growing from MinInterval to RefreshAfter. Close
// stops a refresh in flight and starts no other.
//
// No goroutine runs between refreshes: a refresh is started by the call
// that finds the list old, never by a timer, so an idle server costs the
// platforms nothing.
package accountlist

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Defaults of Options.
const (
	// DefaultRefreshAfter is how old a list gets before a call refreshes it
	// in the background. An hour: accounts are opened and closed rarely, a
	// named new account is found at once (Lookup) and a vanished one on the
	// first failure (Suspect), so what the hour bounds is the drift of names,
	// statuses and conversion actions, and of "every account" in a question
	// that names none. Google's Basic access allows 15,000 operations a day
	// (https://developers.google.com/google-ads/api/docs/access-levels): at
	// 200 customers an hourly listing over an 8-hour working day is about
	// 3,200 requests, a listing every 15 minutes would be 12,800.
	DefaultRefreshAfter = time.Hour
	// DefaultMaxAge is how old a list may be and still answer at once: a
	// list older than a day (a server idle overnight) is refreshed before the
	// first question is answered, unless the platform is failing (then the
	// old list answers: see List.Get).
	DefaultMaxAge = 24 * time.Hour
	// DefaultMinInterval is the least age of a list that a miss or a failure
	// may refresh: the old one-minute reuse, so no pattern of calls lists
	// more often than the server did before.
	DefaultMinInterval = time.Minute
	// DefaultTimeout bounds one refresh, which no caller's deadline bounds
	// (it answers every caller waiting for it, and the next ones).
	DefaultTimeout = 2 * time.Minute
)

// ErrClosed is the answer of a closed List that holds no list.
var ErrClosed = errors.New("the account list is closed")

// Options tune a List; zero values take the defaults.
type Options struct {
	// RefreshAfter: a list at least this old is refreshed in the background
	// by the next call. Negative: every call waits for a fresh list (shared
	// with the calls at the same time).
	RefreshAfter time.Duration
	// MaxAge: a list at least this old is refreshed before a call is answered.
	MaxAge time.Duration
	// MinInterval: the least age of a list that Lookup or Suspect refreshes,
	// and the first wait after a failed refresh.
	MinInterval time.Duration
	// Timeout bounds one refresh.
	Timeout time.Duration
	// Now is the clock lists age by (time.Now when nil).
	Now func() time.Time
	// Logger receives failed refreshes (discarded when nil).
	Logger *slog.Logger
}

// Status is how fresh the list is, for logs, _meta and readiness.
type Status struct {
	// ListedAt is when the list being answered was asked for (zero: none yet).
	ListedAt time.Time
	// Err is why the last refresh failed, when it did (nil after a success).
	Err error
	// FailedAt is when it failed; RetryAt when a refresh is next allowed.
	FailedAt, RetryAt time.Time
	// Refreshing: a refresh is in flight.
	Refreshing bool
}

// List is one source's account list.
type List struct {
	fetch func(context.Context) ([]ads.Account, error)
	o     Options
	// ctx ends at Close; every refresh runs under it, not under the caller
	// that started it, whose deadline must not cut a list others wait for
	// (a refresh only callers wait for ends when they have all left).
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	accts    []ads.Account // nil until the first success
	listedAt time.Time
	flight   *flight
	failures int // consecutive failed refreshes
	err      error
	failedAt time.Time
	retryAt  time.Time
	// forcedAt is when a miss or a failure last started a refresh: they start
	// one per MinInterval whatever came of it, even one cut short because its
	// callers left.
	forcedAt time.Time
	closed   bool
}

// flight is one refresh; done closes when it has ended.
type flight struct {
	done   chan struct{}
	cancel context.CancelFunc
	err    error
	// waiters are the callers waiting for it; detached: something wants it
	// even with none (a background refresh). A refresh neither detached nor
	// waited for is abandoned: cancelled, and not counted as a failure.
	waiters   int
	detached  bool
	abandoned bool
}

// New returns the list fetch lists, fresh per o. Close it.
func New(fetch func(context.Context) ([]ads.Account, error), o Options) *List {
	if o.RefreshAfter == 0 {
		o.RefreshAfter = DefaultRefreshAfter
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MinInterval <= 0 {
		o.MinInterval = DefaultMinInterval
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &List{fetch: fetch, o: o, ctx: ctx, cancel: cancel}
}

// Get returns the list. It waits only when there is none, when RefreshAfter
// is negative, or when the list is MaxAge old and no failure holds refreshes
// back; a list RefreshAfter old is returned at once and refreshed in the
// background. A refresh that fails while a list exists answers that list.
func (l *List) Get(ctx context.Context) ([]ads.Account, error) {
	l.mu.Lock()
	now := l.o.Now()
	age := now.Sub(l.listedAt)
	if l.accts != nil && l.o.RefreshAfter >= 0 && (age < l.o.MaxAge || l.holdingBack(now)) {
		if age >= l.o.RefreshAfter && !l.holdingBack(now) {
			l.start(false)
		}
		accts := slices.Clone(l.accts)
		l.mu.Unlock()
		return accts, nil
	}
	f := l.start(true)
	l.mu.Unlock()
	return l.wait(ctx, f)
}

// Lookup returns the list, refreshed first when known says it lacks what the
// caller asks for (an account ID it does not hold) and the list is at least
// MinInterval old: one refresh per miss, at most one per MinInterval however
// many callers miss, and none while failures hold refreshes back.
func (l *List) Lookup(ctx context.Context, known func([]ads.Account) bool) ([]ads.Account, error) {
	accts, err := l.Get(ctx)
	if err != nil || known(accts) {
		return accts, err
	}
	l.mu.Lock()
	if !l.mayForce(l.o.Now()) {
		l.mu.Unlock()
		return accts, nil
	}
	f := l.force(true)
	l.mu.Unlock()
	return l.wait(ctx, f)
}

// Suspect refreshes the list in the background, when it is at least
// MinInterval old: a query failed in a way an account that vanished or
// whose access was withdrawn explains. It never waits.
func (l *List) Suspect() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mayForce(l.o.Now()) {
		l.force(false)
	}
}

// Last is the last list (nil before the first), without waiting or
// refreshing: for an answer built without the source (a timeout).
func (l *List) Last() []ads.Account {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.accts)
}

// Status says how fresh the list is.
func (l *List) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Status{ListedAt: l.listedAt, Err: l.err, FailedAt: l.failedAt, RetryAt: l.retryAt, Refreshing: l.flight != nil}
}

// Wait returns when no refresh is in flight.
func (l *List) Wait() {
	l.mu.Lock()
	f := l.flight
	l.mu.Unlock()
	if f != nil {
		<-f.done
	}
}

// Close cancels a refresh in flight and starts no other; the last list still
// answers. It waits for the refresh to end, or for ctx: a source that ignores
// cancellation must not hold a shutdown up (it then returns ctx's error).
func (l *List) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	ended := make(chan struct{})
	go func() {
		l.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// holdingBack: a failed refresh's backoff has not passed. l.mu is held.
func (l *List) holdingBack(now time.Time) bool { return now.Before(l.retryAt) }

// mayForce: a miss or a failure may refresh the list now (or join the
// refresh in flight). l.mu is held.
func (l *List) mayForce(now time.Time) bool {
	return l.flight != nil || (now.Sub(l.listedAt) >= l.o.MinInterval && now.Sub(l.forcedAt) >= l.o.MinInterval && !l.holdingBack(now))
}

// force is start for a miss or a failure, which mayForce allowed. l.mu is held.
func (l *List) force(waiting bool) *flight {
	if l.flight == nil {
		l.forcedAt = l.o.Now()
	}
	return l.start(waiting)
}

// start returns the refresh in flight, starting one if none is; waiting: the
// caller will wait for it, else it runs in the background. l.mu is held.
func (l *List) start(waiting bool) *flight {
	f := l.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		if l.closed {
			f.err = ErrClosed
			close(f.done)
			return f
		}
		ctx, cancel := context.WithTimeout(l.ctx, l.o.Timeout)
		f.cancel = cancel
		l.flight = f
		l.wg.Go(func() { l.refresh(ctx, f) })
	}
	if waiting {
		f.waiters++
	} else {
		f.detached = true
	}
	return f
}

// refresh lists the accounts and records the outcome.
func (l *List) refresh(ctx context.Context, f *flight) {
	defer f.cancel()
	asked := l.o.Now()
	accts, err := l.fetch(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.o.Now()
	switch {
	case err == nil && asked.Before(l.listedAt):
		// An abandoned refresh that ended after a newer one: not the list.
	case err == nil:
		if accts == nil {
			accts = []ads.Account{} // a source with no account still has a list
		}
		l.accts, l.listedAt = slices.Clone(accts), asked
		l.failures, l.err, l.failedAt, l.retryAt = 0, nil, time.Time{}, time.Time{}
	case !f.abandoned:
		l.failures++
		l.err, l.failedAt, l.retryAt = err, now, now.Add(l.backoff())
		if l.accts != nil {
			l.o.Logger.Warn("refreshing the account list failed; the last list still answers",
				"listed_at", l.listedAt, "age", now.Sub(l.listedAt).Round(time.Second), "retry_at", l.retryAt, "error", err)
		}
	}
	f.err = err
	if l.flight == f {
		l.flight = nil
	}
	close(f.done)
}

// backoff is the wait after l.failures consecutive failures: MinInterval,
// doubling, at most RefreshAfter (the wait a success would have had).
// l.mu is held.
func (l *List) backoff() time.Duration {
	d := l.o.MinInterval
	for i := 1; i < l.failures && d < l.o.RefreshAfter; i++ {
		d *= 2
	}
	return min(d, max(l.o.RefreshAfter, l.o.MinInterval))
}

// wait waits for f, or for ctx; then answers the list, or f's error when
// there is no list. The last caller to leave a refresh nothing else wants
// cancels it: its requests end with the calls that asked for them.
func (l *List) wait(ctx context.Context, f *flight) ([]ads.Account, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if f.waiters--; f.waiters == 0 && !f.detached && f.cancel != nil {
			// The next caller starts a refresh of its own, rather than
			// join this one as it is being cancelled.
			f.abandoned = true
			f.cancel()
			if l.flight == f {
				l.flight = nil
			}
		}
		return nil, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.accts == nil || (f.err != nil && l.o.RefreshAfter < 0) {
		if f.err == nil {
			return nil, ErrClosed
		}
		return nil, f.err
	}
	return slices.Clone(l.accts), nil
}

package accountlist

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// platform is a fake account listing: it counts listings, and each one
// waits for a release when gated, answers the accounts set, or fails.
type platform struct {
	mu       sync.Mutex
	listings int
	accounts []string
	fail     error
	gate     chan struct{} // non-nil: each listing waits for a receive
}

func (p *platform) list(ctx context.Context) ([]ads.Account, error) {
	p.mu.Lock()
	p.listings++
	gate, fail := p.gate, p.fail
	ids := p.accounts
	p.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	out := make([]ads.Account, len(ids))
	for i, id := range ids {
		out[i] = ads.Account{AccountID: id, Platform: "google_ads"}
	}
	return out, nil
}

func (p *platform) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.listings
}

func (p *platform) set(f func(*platform)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func ids(accts []ads.Account) []string {
	out := make([]string, len(accts))
	for i, a := range accts {
		out[i] = a.AccountID
	}
	return out
}

func has(id string) func([]ads.Account) bool {
	return func(accts []ads.Account) bool {
		for _, a := range accts {
			if a.AccountID == id {
				return true
			}
		}
		return false
	}
}

// Concurrent first callers share one listing.
func TestFirstCallersShareOneListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}, gate: make(chan struct{})}
		l := New(p.list, Options{})
		defer l.Close(t.Context())
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if a, err := l.Get(t.Context()); err != nil || len(a) != 1 {
					t.Errorf("got %v, %v", a, err)
				}
			})
		}
		synctest.Wait() // every caller waits on the one listing
		close(p.gate)
		wg.Wait()
		if n := p.count(); n != 1 {
			t.Errorf("20 first callers: %d listings, want 1", n)
		}
	})
}

// A list older than RefreshAfter answers at once while one background
// refresh runs; the callers meanwhile start no other.
func TestStaleListAnswersWhileOneRefreshRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{RefreshAfter: time.Hour})
		defer l.Close(t.Context())
		ctx := t.Context()
		l.Get(ctx)
		time.Sleep(59 * time.Minute) // the bubble's clock: no real wait
		l.Get(ctx)
		if n := p.count(); n != 1 {
			t.Fatalf("within RefreshAfter: %d listings", n)
		}
		time.Sleep(2 * time.Minute)
		p.set(func(p *platform) { p.accounts, p.gate = []string{"1", "2"}, make(chan struct{}) })
		for range 5 {
			a, err := l.Get(ctx) // never waits for the listing held at the gate
			if err != nil || len(a) != 1 {
				t.Fatalf("while refreshing: %v, %v", ids(a), err)
			}
		}
		synctest.Wait() // the refresh has reached the gate
		if st := l.Status(); !st.Refreshing || p.count() != 2 {
			t.Fatalf("one background refresh: %+v, %d listings", st, p.count())
		}
		p.gate <- struct{}{}
		l.Wait()
		if a, _ := l.Get(ctx); len(a) != 2 {
			t.Errorf("after the refresh: %v", ids(a))
		}
		if st := l.Status(); !st.ListedAt.Equal(time.Now()) || p.count() != 2 {
			t.Errorf("status %+v, %d listings", st, p.count())
		}
	})
}

// A failed refresh keeps the last good list answering and is retried only
// after a backoff that grows; a success resets it.
func TestFailedRefreshKeepsTheLastList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{RefreshAfter: time.Hour, MinInterval: time.Minute})
		defer l.Close(t.Context())
		ctx := t.Context()
		l.Get(ctx)
		down := errors.New("platform down")
		p.set(func(p *platform) { p.fail = down })
		time.Sleep(time.Hour)
		failAt := time.Now()
		for _, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
			l.Get(ctx) // starts a refresh, which fails
			l.Wait()
			st := l.Status()
			if !errors.Is(st.Err, down) || !st.RetryAt.Equal(time.Now().Add(wait)) {
				t.Fatalf("status after a failure: %+v, want a retry in %v", st, wait)
			}
			before := p.count()
			time.Sleep(wait - time.Second)
			if a, err := l.Get(ctx); err != nil || len(a) != 1 {
				t.Fatalf("the last list answers: %v, %v", ids(a), err)
			}
			l.Suspect()
			l.Lookup(ctx, has("9"))
			l.Wait()
			if p.count() != before {
				t.Fatalf("within the backoff: %d listings, want %d", p.count(), before)
			}
			time.Sleep(time.Second)
		}
		p.set(func(p *platform) { p.fail, p.accounts = nil, []string{"1", "2"} })
		l.Get(ctx)
		l.Wait()
		if st := l.Status(); st.Err != nil || !st.RetryAt.IsZero() || !st.ListedAt.After(failAt) {
			t.Errorf("after a success: %+v", st)
		}
		if a, _ := l.Get(ctx); len(a) != 2 {
			t.Errorf("refreshed list: %v", ids(a))
		}
	})
}

// A caller naming an account the list lacks waits for one refresh, and gets
// the account if it now exists; misses within MinInterval of a listing
// refresh nothing, however many.
func TestMissRefreshesOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{MinInterval: time.Minute})
		defer l.Close(t.Context())
		ctx := t.Context()
		if a, _ := l.Lookup(ctx, has("2")); len(a) != 1 || p.count() != 1 {
			t.Fatalf("a first listing is fresh: no second one for a miss (%v, %d listings)", ids(a), p.count())
		}
		time.Sleep(time.Minute)
		p.set(func(p *platform) { p.accounts = []string{"1", "2"} })
		if a, _ := l.Lookup(ctx, has("2")); len(a) != 2 || p.count() != 2 {
			t.Fatalf("a miss: %v, %d listings, want the new account after one listing", ids(a), p.count())
		}
		for range 50 {
			l.Lookup(ctx, has("unknown"))
		}
		if p.count() != 2 {
			t.Errorf("50 misses within a minute: %d listings, want 2", p.count())
		}
		if l.Lookup(ctx, has("1")); p.count() != 2 {
			t.Errorf("a known account: %d listings", p.count())
		}
		time.Sleep(time.Minute)
		l.Lookup(ctx, has("unknown"))
		if p.count() != 3 {
			t.Errorf("a miss a minute later: %d listings, want 3", p.count())
		}
	})
}

// Misses and failures at once share the refresh in flight.
func TestMissesJoinTheRefreshInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{})
		defer l.Close(t.Context())
		l.Get(t.Context())
		time.Sleep(time.Minute)
		p.set(func(p *platform) { p.gate = make(chan struct{}) })
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() { l.Lookup(t.Context(), has("2")) })
			l.Suspect()
		}
		synctest.Wait()
		close(p.gate)
		wg.Wait()
		if p.count() != 2 {
			t.Errorf("10 misses and 10 failures at once: %d listings, want 2", p.count())
		}
	})
}

// A list older than MaxAge is refreshed before the call is answered; if
// that fails, the old list answers.
func TestListPastMaxAgeWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{RefreshAfter: time.Hour, MaxAge: 24 * time.Hour})
		defer l.Close(t.Context())
		ctx := t.Context()
		l.Get(ctx)
		time.Sleep(25 * time.Hour)
		p.set(func(p *platform) { p.accounts = []string{"1", "2"} })
		if a, _ := l.Get(ctx); len(a) != 2 {
			t.Fatalf("past MaxAge the call waits for the new list: %v", ids(a))
		}
		time.Sleep(25 * time.Hour)
		p.set(func(p *platform) { p.fail = errors.New("down") })
		if a, err := l.Get(ctx); err != nil || len(a) != 2 {
			t.Errorf("past MaxAge, platform failing: %v, %v, want the old list", ids(a), err)
		}
	})
}

// Without a list, a failure is the caller's error and the next call tries
// again; a negative RefreshAfter lists on every call.
func TestNoListYet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{fail: errors.New("down")}
		l := New(p.list, Options{})
		defer l.Close(t.Context())
		if _, err := l.Get(t.Context()); err == nil {
			t.Fatal("a failing first listing answered")
		}
		p.set(func(p *platform) { p.fail, p.accounts = nil, []string{"1"} })
		if a, err := l.Get(t.Context()); err != nil || len(a) != 1 {
			t.Fatalf("second call: %v, %v", ids(a), err)
		}
		every := New(p.list, Options{RefreshAfter: -1})
		defer every.Close(t.Context())
		every.Get(t.Context())
		every.Get(t.Context())
		if p.count() != 4 {
			t.Errorf("negative RefreshAfter: %d listings, want 4", p.count())
		}
		p.set(func(p *platform) { p.fail = errors.New("down") })
		if _, err := every.Get(t.Context()); err == nil {
			t.Error("negative RefreshAfter: a failed listing answered")
		}
	})
}

// A caller that gives up does not cut the listing others wait for; when
// the last one leaves, the listing is cancelled (not counted as a failure),
// and a miss may not start another for MinInterval.
func TestListingEndsWithItsCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}, gate: make(chan struct{})}
		l := New(p.list, Options{})
		defer l.Close(t.Context())
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		patient := make(chan []ads.Account)
		go func() {
			a, _ := l.Get(t.Context())
			patient <- a
		}()
		if _, err := l.Get(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("impatient caller: %v", err)
		}
		close(p.gate)
		if a := <-patient; len(a) != 1 || p.count() != 1 {
			t.Fatalf("the patient caller: %v, %d listings", ids(a), p.count())
		}

		time.Sleep(time.Minute)
		p.set(func(p *platform) { p.gate = make(chan struct{}) }) // never released
		for i := range 3 {
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			a, err := l.Lookup(ctx, has("2"))
			cancel()
			l.Wait()
			if i == 0 && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a miss that gives up: %v", err)
			}
			if i > 0 && (err != nil || len(a) != 1) {
				t.Fatalf("a miss within MinInterval of the last: %v, %v, want the list at once", ids(a), err)
			}
		}
		if st := l.Status(); st.Refreshing || st.Err != nil || p.count() != 2 {
			t.Errorf("a listing its callers left: %+v, %d listings, want 2 and no failure", st, p.count())
		}
	})
}

// Close cancels the refresh in flight, waits for it and starts no other;
// the last list still answers. synctest.Test fails if a goroutine is left.
// A source ignoring cancellation holds Close only until its context ends.
func TestCloseStopsRefreshing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &platform{accounts: []string{"1"}}
		l := New(p.list, Options{RefreshAfter: time.Minute})
		ctx := t.Context()
		l.Get(ctx)
		time.Sleep(time.Minute)
		p.set(func(p *platform) { p.gate = make(chan struct{}) }) // never released
		l.Get(ctx)                                                // starts a refresh that blocks
		if !l.Status().Refreshing {
			t.Fatal("no refresh in flight")
		}
		if err := l.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if st := l.Status(); st.Refreshing || !errors.Is(st.Err, context.Canceled) {
			t.Errorf("after Close: %+v", st)
		}
		time.Sleep(time.Hour)
		n := p.count()
		l.Suspect()
		if a, err := l.Get(ctx); err != nil || len(a) != 1 || p.count() != n {
			t.Errorf("closed: %v, %v, %d listings (was %d)", ids(a), err, p.count(), n)
		}
		release := make(chan struct{})
		stuck := New(func(context.Context) ([]ads.Account, error) { <-release; return nil, errors.New("late") }, Options{})
		go stuck.Get(ctx)
		synctest.Wait()
		bounded, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := stuck.Close(bounded); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Close of a listing that ignores cancellation: %v", err)
		}
		close(release)
		empty := New(p.list, Options{})
		empty.Close(t.Context())
		if _, err := empty.Get(ctx); !errors.Is(err, ErrClosed) {
			t.Errorf("closed without a list: %v", err)
		}
	})
}

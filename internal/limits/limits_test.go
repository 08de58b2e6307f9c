package limits

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// clock is a fake time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// rejects records OnReject calls.
type rejects struct {
	mu  sync.Mutex
	got []string
}

func (r *rejects) on(principal, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, principal+"/"+reason)
}

func (r *rejects) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func newTest(opts Options) (*Limiter, *clock, *rejects) {
	rj := &rejects{}
	opts.OnReject = rj.on
	l := New(opts)
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l.now = c.Now
	return l, c, rj
}

func mustAcquire(t *testing.T, l *Limiter, p *auth.Principal) func() {
	t.Helper()
	release, retry, ok := l.Acquire(p)
	if !ok {
		t.Fatalf("%s refused (retry after %v), want admitted", p.ID, retry)
	}
	if release == nil {
		t.Fatal("admitted with a nil release")
	}
	return release
}

func mustRefuse(t *testing.T, l *Limiter, p *auth.Principal) time.Duration {
	t.Helper()
	release, retry, ok := l.Acquire(p)
	if ok {
		release()
		t.Fatalf("%s admitted, want refused", p.ID)
	}
	if retry <= 0 {
		t.Fatalf("refused with retryAfter %v, want > 0", retry)
	}
	return retry
}

func TestDefaults(t *testing.T) {
	o := New(Options{}).Options()
	if o.RequestsPerMinute != 120 || o.Burst != 20 || o.MaxConcurrent != 4 || o.IdleAfter != 10*time.Minute || o.BusyRetryAfter != 2*time.Second {
		t.Errorf("defaults = %+v", o)
	}
	if b := New(Options{RequestsPerMinute: 3}).Options().Burst; b != 1 {
		t.Errorf("burst for 3/min = %d, want 1", b)
	}
}

func TestRateExceededAndRefill(t *testing.T) {
	l, c, rj := newTest(Options{RequestsPerMinute: 60, Burst: 2, MaxConcurrent: 100})
	p := &auth.Principal{ID: "key:a"}
	mustAcquire(t, l, p)()
	mustAcquire(t, l, p)()
	retry := mustRefuse(t, l, p)
	if retry > time.Second || retry < 900*time.Millisecond {
		t.Errorf("retryAfter = %v, want about 1 s (one token at 1/s)", retry)
	}
	// Part of the wait: still refused, with less to wait.
	c.Advance(500 * time.Millisecond)
	if r2 := mustRefuse(t, l, p); r2 > 500*time.Millisecond {
		t.Errorf("retryAfter after 0.5 s = %v, want <= 0.5 s (refusals must not use tokens)", r2)
	}
	// Refusals gave their reservations back: one token after a second.
	c.Advance(500 * time.Millisecond)
	mustAcquire(t, l, p)()
	mustRefuse(t, l, p)
	// The bucket refills up to the burst, not beyond.
	c.Advance(time.Hour)
	mustAcquire(t, l, p)()
	mustAcquire(t, l, p)()
	mustRefuse(t, l, p)
	got := rj.list()
	if len(got) != 4 {
		t.Fatalf("OnReject calls = %v, want 4", got)
	}
	for _, g := range got {
		if g != "key:a/rate" {
			t.Errorf("OnReject got %q, want key:a/rate", g)
		}
	}
}

func TestConcurrencyCapAndRelease(t *testing.T) {
	l, _, rj := newTest(Options{RequestsPerMinute: 6000, Burst: 100, MaxConcurrent: 2, BusyRetryAfter: 3 * time.Second})
	p := &auth.Principal{ID: "key:a"}
	r1 := mustAcquire(t, l, p)
	r2 := mustAcquire(t, l, p)
	if retry := mustRefuse(t, l, p); retry != 3*time.Second {
		t.Errorf("retryAfter = %v, want BusyRetryAfter 3s", retry)
	}
	r1()
	r3 := mustAcquire(t, l, p)
	mustRefuse(t, l, p)
	r2()
	r3()
	mustAcquire(t, l, p)()
	if got := rj.list(); len(got) != 2 || got[0] != "key:a/concurrency" || got[1] != "key:a/concurrency" {
		t.Errorf("OnReject = %v, want two concurrency refusals", got)
	}
}

func TestConcurrencyRefusalCostsNoToken(t *testing.T) {
	l, _, _ := newTest(Options{RequestsPerMinute: 60, Burst: 2, MaxConcurrent: 1})
	p := &auth.Principal{ID: "key:a"}
	r := mustAcquire(t, l, p)
	for range 5 {
		mustRefuse(t, l, p)
	}
	r()
	mustAcquire(t, l, p)() // the second token is still there
}

func TestReleaseIdempotent(t *testing.T) {
	l, _, _ := newTest(Options{RequestsPerMinute: 6000, Burst: 100, MaxConcurrent: 1})
	p := &auth.Principal{ID: "key:a"}
	r := mustAcquire(t, l, p)
	r()
	r()
	r()
	r2 := mustAcquire(t, l, p)
	mustRefuse(t, l, p) // a double release must not have freed a second slot
	r2()
}

func TestPrincipalOverrides(t *testing.T) {
	l, c, _ := newTest(Options{RequestsPerMinute: 600, MaxConcurrent: 10})
	slow := &auth.Principal{ID: "key:slow", RequestsPerMinute: 6, MaxConcurrent: 1}
	// 6/min with the default proportion (burst = rpm/6) is a burst of 1.
	mustAcquire(t, l, slow)()
	if retry := mustRefuse(t, l, slow); retry < 9*time.Second || retry > 10*time.Second {
		t.Errorf("retryAfter = %v, want about 10 s at 6/min", retry)
	}
	c.Advance(10 * time.Second)
	r := mustAcquire(t, l, slow)
	c.Advance(10 * time.Second)
	// A token is back, but the call in progress holds the only slot.
	if retry := mustRefuse(t, l, slow); retry != DefaultBusyRetryAfter {
		t.Errorf("retryAfter = %v, want the busy retry %v", retry, DefaultBusyRetryAfter)
	}
	r()
	mustAcquire(t, l, slow)()

	fast := &auth.Principal{ID: "key:fast", RequestsPerMinute: 6000, MaxConcurrent: 50}
	var rel []func()
	for range 50 {
		rel = append(rel, mustAcquire(t, l, fast))
	}
	mustRefuse(t, l, fast)
	for _, f := range rel {
		f()
	}

	// A principal's limits changing (config reload) apply from its next call
	// (its tokens are kept, then refill at the new rate up to the new burst).
	slow2 := &auth.Principal{ID: "key:slow", RequestsPerMinute: 600, MaxConcurrent: 3}
	c.Advance(time.Minute)
	mustAcquire(t, l, slow2)()
	c.Advance(time.Minute)
	for range 3 {
		defer mustAcquire(t, l, slow2)()
	}
	mustRefuse(t, l, slow2)
}

func TestPrincipalsIndependent(t *testing.T) {
	l, _, _ := newTest(Options{RequestsPerMinute: 60, Burst: 1, MaxConcurrent: 1})
	a := &auth.Principal{ID: "key:a"}
	b := &auth.Principal{ID: "key:b"}
	ra := mustAcquire(t, l, a)
	mustRefuse(t, l, a)
	rb := mustAcquire(t, l, b) // a's slot and tokens are a's own
	mustRefuse(t, l, b)
	ra()
	rb()
	mustRefuse(t, l, a) // no token yet
	mustRefuse(t, l, b)
}

func TestNilPrincipalAdmitted(t *testing.T) {
	l := New(Options{RequestsPerMinute: 1, MaxConcurrent: 1})
	for range 10 {
		release, _, ok := l.Acquire(nil)
		if !ok {
			t.Fatal("nil principal refused")
		}
		release()
	}
	if l.Len() != 0 {
		t.Errorf("Len = %d, want 0: no state for the local user", l.Len())
	}
}

func TestIdleEntriesDropped(t *testing.T) {
	l, c, _ := newTest(Options{RequestsPerMinute: 60, Burst: 1, MaxConcurrent: 5, IdleAfter: time.Minute})
	busy := &auth.Principal{ID: "key:busy"}
	held := mustAcquire(t, l, busy)
	for i := range 100 {
		mustAcquire(t, l, &auth.Principal{ID: "key:" + string(rune('A'+i%26)) + string(rune('a'+i/26))})()
	}
	if l.Len() != 101 {
		t.Fatalf("Len = %d, want 101", l.Len())
	}
	c.Advance(2 * time.Minute)
	mustAcquire(t, l, &auth.Principal{ID: "key:new"})() // triggers the sweep
	if l.Len() != 2 {
		t.Errorf("Len after idle = %d, want 2 (busy, which has a call in progress, and new)", l.Len())
	}
	held()
	c.Advance(2 * time.Minute)
	mustAcquire(t, l, &auth.Principal{ID: "key:new"})()
	if l.Len() != 1 {
		t.Errorf("Len = %d, want 1", l.Len())
	}
}

func TestIdleEntryKeptUntilBucketFull(t *testing.T) {
	// 1/min with a burst of 5: a drained bucket takes 5 minutes to refill,
	// longer than IdleAfter. Forgetting it earlier would hand out tokens.
	l, c, _ := newTest(Options{RequestsPerMinute: 1, Burst: 5, MaxConcurrent: 5, IdleAfter: time.Minute})
	p := &auth.Principal{ID: "key:a"}
	for range 5 {
		mustAcquire(t, l, p)()
	}
	mustRefuse(t, l, p)
	c.Advance(2 * time.Minute)
	mustAcquire(t, l, &auth.Principal{ID: "key:other"})()
	if l.Len() != 2 {
		t.Errorf("Len = %d, want 2: key:a's bucket is not full yet", l.Len())
	}
	c.Advance(10 * time.Minute)
	mustAcquire(t, l, &auth.Principal{ID: "key:other"})()
	if l.Len() != 1 {
		t.Errorf("Len = %d, want 1", l.Len())
	}
}

func TestConcurrentUse(t *testing.T) {
	const maxc = 3
	var refused atomic.Int64
	l := New(Options{RequestsPerMinute: 600000, Burst: 1000, MaxConcurrent: maxc, IdleAfter: time.Millisecond,
		OnReject: func(string, string) { refused.Add(1) }})
	principals := []*auth.Principal{{ID: "key:a"}, {ID: "key:b"}, {ID: "key:c", MaxConcurrent: 1}}
	inflight := make([]atomic.Int64, len(principals))
	var wg sync.WaitGroup
	var over atomic.Bool
	for g := range 16 {
		wg.Go(func() {
			for i := range 300 {
				k := (g + i) % len(principals)
				p := principals[k]
				release, _, ok := l.Acquire(p)
				if !ok {
					continue
				}
				limit := int64(maxc)
				if p.MaxConcurrent > 0 {
					limit = int64(p.MaxConcurrent)
				}
				if n := inflight[k].Add(1); n > limit {
					over.Store(true)
				}
				if i%7 == 0 {
					time.Sleep(10 * time.Microsecond)
				}
				inflight[k].Add(-1)
				release()
				release()
			}
		})
	}
	wg.Wait()
	if over.Load() {
		t.Error("more calls in progress than the cap")
	}
	if refused.Load() == 0 {
		t.Log("no refusals (scheduling); the cap was not exercised")
	}
	// Everything was released: every principal can use its full cap again.
	for _, p := range principals {
		n := maxc
		if p.MaxConcurrent > 0 {
			n = p.MaxConcurrent
		}
		for range n {
			defer mustAcquire(t, l, p)()
		}
	}
}

// TestAllowSpendsRateOnly: Allow spends a rate token but needs no free
// concurrency slot (initialize while calls run), and refuses once the rate is
// used up.
func TestAllowSpendsRateOnly(t *testing.T) {
	l, _, _ := newTest(Options{RequestsPerMinute: 12, MaxConcurrent: 1}) // burst 2
	p := &auth.Principal{ID: "key:a"}
	release := mustAcquire(t, l, p)
	defer release()
	if _, ok := l.Allow(p); !ok {
		t.Fatal("Allow refused while the principal's only slot is busy: it must not need one")
	}
	if retry, ok := l.Allow(p); ok || retry <= 0 {
		t.Fatalf("third request of a burst of 2: ok=%v retry=%v, want refused", ok, retry)
	}
}

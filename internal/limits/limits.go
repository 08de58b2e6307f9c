// Package limits admits each principal's tool calls: a request rate (a token
// bucket per principal) and a cap on calls at once. A refused call gets a
// retry-after, never a wait: the limiter does not block.
//
// The Limiter implements mcpserver.Limiter.
package limits

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// Defaults.
const (
	DefaultRequestsPerMinute = 120
	DefaultMaxConcurrent     = 4
	DefaultIdleAfter         = 10 * time.Minute
	// DefaultBusyRetryAfter is the retry-after of a call refused for too many
	// calls at once: the limiter cannot know when one of them ends.
	DefaultBusyRetryAfter = 2 * time.Second
)

// Reasons a call is refused, as passed to Options.OnReject.
const (
	// ReasonRate: the principal's request rate is used up.
	ReasonRate = "rate"
	// ReasonConcurrency: the principal has its maximum of calls in progress.
	ReasonConcurrency = "concurrency"
)

// Options configure a Limiter. Zero values take the defaults.
type Options struct {
	// RequestsPerMinute is each principal's sustained rate (default 120).
	RequestsPerMinute int
	// Burst is how many calls a principal may make at once after a quiet
	// spell (default RequestsPerMinute/6, at least 1). A principal with its
	// own RequestsPerMinute gets a burst in the same proportion.
	Burst int
	// MaxConcurrent caps a principal's calls in progress (default 4).
	MaxConcurrent int
	// IdleAfter: a principal's state is forgotten after this long without
	// calls (default 10 minutes), once its bucket is full again, so
	// forgetting never gives anyone more calls.
	IdleAfter time.Duration
	// BusyRetryAfter is the retry-after when the concurrency cap refuses a
	// call (default 2 s).
	BusyRetryAfter time.Duration
	// OnReject, when set, is called (outside the limiter's lock) for every
	// refused call with the principal's ID and ReasonRate or
	// ReasonConcurrency: feed it to metrics and logs.
	OnReject func(principal, reason string)
}

// Limiter is a per-principal rate limit and concurrency cap. It is safe for
// concurrent use.
type Limiter struct {
	opts Options
	now  func() time.Time

	mu        sync.Mutex
	entries   map[string]*entry
	lastSweep time.Time
}

// entry is one principal's state.
type entry struct {
	lim    *rate.Limiter
	rpm    int // the rate lim was set up with
	burst  int
	active int       // calls in progress
	last   time.Time // last call started or ended
}

// New returns a Limiter with opts (defaults filled in).
func New(opts Options) *Limiter {
	if opts.RequestsPerMinute <= 0 {
		opts.RequestsPerMinute = DefaultRequestsPerMinute
	}
	if opts.Burst <= 0 {
		opts.Burst = max(1, opts.RequestsPerMinute/6)
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.IdleAfter <= 0 {
		opts.IdleAfter = DefaultIdleAfter
	}
	if opts.BusyRetryAfter <= 0 {
		opts.BusyRetryAfter = DefaultBusyRetryAfter
	}
	return &Limiter{opts: opts, now: time.Now, entries: map[string]*entry{}}
}

// Options are the limiter's options, defaults filled in.
func (l *Limiter) Options() Options { return l.opts }

// Acquire admits one call of p, or refuses it and says how long to wait
// before trying again. When ok, release must be called when the call ends;
// calling it more than once is harmless. A nil principal (stdio, the local
// user) is always admitted.
func (l *Limiter) Acquire(p *auth.Principal) (release func(), retryAfter time.Duration, ok bool) {
	return l.acquire(p, true)
}

// acquire admits one request of p: a rate token, and a concurrency slot when
// slot is set.
func (l *Limiter) acquire(p *auth.Principal, slot bool) (release func(), retryAfter time.Duration, ok bool) {
	if p == nil {
		return func() {}, 0, true
	}
	rpm, burst, maxc := l.limitsFor(p)
	now := l.now()

	l.mu.Lock()
	l.sweepLocked(now)
	e := l.entries[p.ID]
	if e == nil {
		e = &entry{lim: rate.NewLimiter(perSecond(rpm), burst), rpm: rpm, burst: burst}
		l.entries[p.ID] = e
	} else if e.rpm != rpm || e.burst != burst {
		// The principal's limits changed (a config reload): keep its tokens.
		e.lim.SetLimitAt(now, perSecond(rpm))
		e.lim.SetBurstAt(now, burst)
		e.rpm, e.burst = rpm, burst
	}
	e.last = now
	reason := ""
	switch {
	case slot && e.active >= maxc:
		// Checked first, so a refused call costs no token.
		reason, retryAfter = ReasonConcurrency, l.opts.BusyRetryAfter
	default:
		r := e.lim.ReserveN(now, 1)
		if !r.OK() {
			// Cannot happen with burst >= 1; refuse rather than block.
			reason, retryAfter = ReasonRate, time.Minute
			break
		}
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now) // give the token back: nothing runs
			reason, retryAfter = ReasonRate, d
		}
	}
	if reason == "" {
		e.active++
	}
	l.mu.Unlock()

	if reason != "" {
		if l.opts.OnReject != nil {
			l.opts.OnReject(p.ID, reason)
		}
		return nil, retryAfter, false
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			t := l.now()
			l.mu.Lock()
			e.active--
			e.last = t
			l.mu.Unlock()
		})
	}, 0, true
}

// limitsFor is p's rate, burst and concurrency cap: its own when set.
func (l *Limiter) limitsFor(p *auth.Principal) (rpm, burst, maxc int) {
	rpm, burst, maxc = l.opts.RequestsPerMinute, l.opts.Burst, l.opts.MaxConcurrent
	if p.RequestsPerMinute > 0 && p.RequestsPerMinute != rpm {
		// Same proportion of burst to rate as the defaults.
		burst = max(1, int(int64(l.opts.Burst)*int64(p.RequestsPerMinute)/int64(rpm)))
		rpm = p.RequestsPerMinute
	}
	if p.MaxConcurrent > 0 {
		maxc = p.MaxConcurrent
	}
	return rpm, burst, maxc
}

func perSecond(rpm int) rate.Limit { return rate.Limit(float64(rpm) / 60) }

// sweepLocked forgets principals idle for IdleAfter with no call in
// progress and a full bucket. It runs at most every IdleAfter/2, so its cost
// is spread over many calls.
func (l *Limiter) sweepLocked(now time.Time) {
	if now.Sub(l.lastSweep) < l.opts.IdleAfter/2 {
		return
	}
	l.lastSweep = now
	for id, e := range l.entries {
		if e.active == 0 && now.Sub(e.last) >= l.opts.IdleAfter && e.lim.TokensAt(now) >= float64(e.burst) {
			delete(l.entries, id)
		}
	}
}

// Len is how many principals the limiter currently keeps state for.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Allow spends one of p's rate tokens without taking a concurrency slot, or
// says how long to wait: for requests that are instant but must not be free,
// such as initialize (each opens a session). A nil principal is always allowed.
func (l *Limiter) Allow(p *auth.Principal) (retryAfter time.Duration, ok bool) {
	release, retry, ok := l.acquire(p, false)
	if ok {
		release()
	}
	return retry, ok
}

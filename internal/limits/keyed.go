package limits

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultUnauthenticatedPerMinute is each client address's allowance of
// requests that fail authentication. A real client needs one or two (the 401
// that starts OAuth discovery); a flood or a key guesser needs thousands.
const DefaultUnauthenticatedPerMinute = 60

// Keyed is a token bucket per key (a client address), for requests that have
// no principal yet. Keys idle with a full bucket are forgotten, so the map
// stays as small as the set of recent offenders. It is safe for concurrent use.
type Keyed struct {
	perMinute int
	burst     int
	now       func() time.Time

	mu        sync.Mutex
	buckets   map[string]*keyedBucket
	lastSweep time.Time
}

type keyedBucket struct {
	lim  *rate.Limiter
	last time.Time
}

// NewKeyed allows perMinute requests per key (DefaultUnauthenticatedPerMinute
// when 0), with bursts of a sixth of that (at least 1).
func NewKeyed(perMinute int) *Keyed {
	if perMinute <= 0 {
		perMinute = DefaultUnauthenticatedPerMinute
	}
	return &Keyed{perMinute: perMinute, burst: max(1, perMinute/6), now: time.Now, buckets: map[string]*keyedBucket{}}
}

// Reserve takes one token of key. When ok, giveBack returns it (the request
// turned out to be authenticated, so it must not count); when not, retryAfter
// says when a token will be there again, and nothing was taken.
func (k *Keyed) Reserve(key string) (giveBack func(), retryAfter time.Duration, ok bool) {
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweepLocked(now)
	b := k.buckets[key]
	if b == nil {
		b = &keyedBucket{lim: rate.NewLimiter(perSecond(k.perMinute), k.burst)}
		k.buckets[key] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); !r.OK() || d > 0 {
		r.CancelAt(now)
		return nil, max(d, time.Second), false
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			r.CancelAt(k.now())
		})
	}, 0, true
}

// sweepLocked forgets keys idle for 10 minutes with a full bucket, at most
// every 5 minutes.
func (k *Keyed) sweepLocked(now time.Time) {
	if now.Sub(k.lastSweep) < DefaultIdleAfter/2 {
		return
	}
	k.lastSweep = now
	for key, b := range k.buckets {
		if now.Sub(b.last) >= DefaultIdleAfter && b.lim.TokensAt(now) >= float64(k.burst) {
			delete(k.buckets, key)
		}
	}
}

// Len is how many keys the limiter keeps state for.
func (k *Keyed) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.buckets)
}

// ClientKey is the key of a request's remote address (http.Request.RemoteAddr):
// the IPv4 address, or the /64 of an IPv6 address (one host usually holds a
// whole /64, so per-address keys would not limit it).
func ClientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

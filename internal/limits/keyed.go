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

// Keyed is a token bucket per key (a client address), for requests that
// failed authentication. Keys idle with a full bucket are forgotten, so the map
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

// Take spends one token of key, for a request that failed authentication:
// the caller asks only once it knows, so a request that authenticates never
// spends anything. When the bucket is empty, ok is false, nothing was taken,
// and retryAfter says when a token will be there again.
//
// A token cannot be taken first and given back later: rate.Reservation's
// CancelAt restores nothing once the reservation's time has passed, which
// for a token available at once is the moment it was taken
// (https://pkg.go.dev/golang.org/x/time/rate#Reservation.CancelAt). Here
// the reservation is cancelled at the very instant it was made, so it is.
func (k *Keyed) Take(key string) (retryAfter time.Duration, ok bool) {
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
		return max(d, time.Second), false
	}
	return 0, true
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

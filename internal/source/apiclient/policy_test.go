package apiclient

import (
	"testing"
	"time"
)

// pinned is a client whose jitter is always its minimum (lo) or maximum.
func pinned(p Policy, hi bool) *Client {
	c := New(Options{Policy: p})
	c.jitter = func(d time.Duration) time.Duration {
		if hi {
			return d
		}
		return 0
	}
	return c
}

func TestPolicyOr(t *testing.T) {
	def := Policy{MaxRetries: 4, BaseDelay: time.Second, MaxWait: 30 * time.Second}
	for _, tc := range []struct{ in, want Policy }{
		{Policy{}, def},
		{Policy{MaxRetries: -1}, Policy{MaxRetries: 0, BaseDelay: time.Second, MaxWait: 30 * time.Second}},
		{Policy{MaxRetries: 2, BaseDelay: -time.Second, MaxWait: time.Minute}, Policy{MaxRetries: 2, BaseDelay: time.Second, MaxWait: time.Minute}},
		{Policy{MaxRetries: 7, BaseDelay: 5 * time.Millisecond, MaxWait: time.Second}, Policy{MaxRetries: 7, BaseDelay: 5 * time.Millisecond, MaxWait: time.Second}},
	} {
		if got := tc.in.Or(def); got != tc.want {
			t.Errorf("%+v.Or(defaults) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestBackoffBounds: retry n waits between half and all of BaseDelay·2ⁿ⁻¹,
// never more than MaxWait, whatever the jitter.
func TestBackoffBounds(t *testing.T) {
	p := Policy{MaxRetries: 100, BaseDelay: time.Second, MaxWait: 30 * time.Second}
	lo, hi := pinned(p, false), pinned(p, true)
	for _, tc := range []struct {
		retries int
		lo, hi  time.Duration
	}{
		{0, 500 * time.Millisecond, time.Second},
		{1, time.Second, 2 * time.Second},
		{2, 2 * time.Second, 4 * time.Second},
		{4, 8 * time.Second, 16 * time.Second},
		{5, 15 * time.Second, 30 * time.Second}, // 32 s capped at 30 s
		{40, 15 * time.Second, 30 * time.Second},
		{1000, 15 * time.Second, 30 * time.Second}, // no overflow
	} {
		gotLo, ok1 := lo.wait(Retry(0), tc.retries)
		gotHi, ok2 := hi.wait(Retry(0), tc.retries)
		if !ok1 || !ok2 || gotLo != tc.lo || gotHi != tc.hi {
			t.Errorf("retry %d: waits %v..%v (%t %t), want %v..%v", tc.retries+1, gotLo, gotHi, ok1, ok2, tc.lo, tc.hi)
		}
	}
}

// TestJitterSpreads: the real jitter stays within the bounds and spreads the
// waits (callers failing together do not retry together).
func TestJitterSpreads(t *testing.T) {
	c := New(Options{Policy: Policy{MaxRetries: 3, BaseDelay: time.Second, MaxWait: time.Minute}})
	seen := map[time.Duration]bool{}
	for range 1000 {
		w, ok := c.wait(Retry(0), 2)
		if !ok || w < 2*time.Second || w > 4*time.Second {
			t.Fatalf("wait %v outside [2s, 4s]", w)
		}
		h, ok := c.wait(Retry(10*time.Second), 0)
		if !ok || h < 10*time.Second || h > 11*time.Second {
			t.Fatalf("hinted wait %v outside [10s, 11s]", h)
		}
		seen[w] = true
	}
	if len(seen) < 900 {
		t.Errorf("only %d distinct waits out of 1000: no jitter", len(seen))
	}
}

// TestHintBounds: the platform's wait is honoured plus up to 10 %, capped at
// MaxWait; a wait longer than MaxWait is refused.
func TestHintBounds(t *testing.T) {
	p := Policy{MaxRetries: 3, BaseDelay: time.Second, MaxWait: 30 * time.Second}
	lo, hi := pinned(p, false), pinned(p, true)
	for _, tc := range []struct {
		hint, lo, hi time.Duration
		ok           bool
	}{
		{10 * time.Second, 10 * time.Second, 11 * time.Second, true},
		{100 * time.Millisecond, 100 * time.Millisecond, 110 * time.Millisecond, true},
		{29 * time.Second, 29 * time.Second, 30 * time.Second, true}, // jitter capped at MaxWait
		{30 * time.Second, 30 * time.Second, 30 * time.Second, true},
		{31 * time.Second, 0, 0, false},
		{5 * time.Minute, 0, 0, false},
	} {
		gotLo, ok1 := lo.wait(Retry(tc.hint), 3) // the retry number does not matter
		gotHi, ok2 := hi.wait(Retry(tc.hint), 3)
		if ok1 != tc.ok || ok2 != tc.ok || gotLo != tc.lo || gotHi != tc.hi {
			t.Errorf("hint %v: waits %v..%v (%t), want %v..%v (%t)", tc.hint, gotLo, gotHi, ok1, tc.lo, tc.hi, tc.ok)
		}
	}
}

package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// errBusy is a failure the test classifier retries with backoff; errSlow one
// with the platform's wait hint; errBad one it does not retry.
var (
	errBusy = errors.New("busy")
	errSlow = errors.New("slow down")
	errBad  = errors.New("bad request")
)

// hint is the wait errSlow asks for.
const hint = 3 * time.Second

func classify(err error) Verdict {
	switch {
	case errors.Is(err, errBusy):
		return Retry(0)
	case errors.Is(err, errSlow):
		return Retry(hint)
	}
	return Permanent
}

// recorder is a send function that fails with errs in turn (then succeeds)
// and records when each attempt was made.
type recorder struct {
	mu    sync.Mutex
	errs  []error
	times []time.Time
}

func (r *recorder) send(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.times)
	r.times = append(r.times, time.Now())
	if n < len(r.errs) {
		return fmt.Errorf("attempt %d: %w", n+1, r.errs[n])
	}
	return nil
}

// gaps are the waits between attempts.
func (r *recorder) gaps() []time.Duration {
	var out []time.Duration
	for i := 1; i < len(r.times); i++ {
		out = append(out, r.times[i].Sub(r.times[i-1]))
	}
	return out
}

func repeat(err error, n int) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// newClient has no rate limit, jitter pinned to its maximum (so waits are
// exact) and policy p.
func newClient(p Policy, opts ...func(*Options)) *Client {
	o := Options{Name: "test", Policy: p, Classify: classify}
	for _, f := range opts {
		f(&o)
	}
	c := New(o)
	c.jitter = func(d time.Duration) time.Duration { return d }
	return c
}

var testPolicy = Policy{MaxRetries: 3, BaseDelay: time.Second, MaxWait: 30 * time.Second}

// TestRetriesThenGivesUp: a failure that keeps coming is sent MaxRetries+1
// times, backing off 1 s, 2 s, 4 s, and the last error is returned.
func TestRetriesThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: repeat(errBusy, 10)}
		err := newClient(testPolicy).Do(t.Context(), "GET /x", r.send)
		if !errors.Is(err, errBusy) || !strings.HasPrefix(err.Error(), "attempt 4:") {
			t.Errorf("err = %v, want the 4th attempt's", err)
		}
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
		if got := r.gaps(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("waits %v, want %v", got, want)
		}
	})
}

// TestRecovers: a failure that passes is retried until the request succeeds.
func TestRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{errBusy, errSlow}}
		if err := newClient(testPolicy).Do(t.Context(), "GET /x", r.send); err != nil {
			t.Fatal(err)
		}
		if len(r.times) != 3 {
			t.Errorf("%d attempts, want 3", len(r.times))
		}
	})
}

// TestNoRetries: MaxRetries 0 sends once; a permanent failure is sent once.
func TestNoRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: repeat(errBusy, 5)}
		if err := newClient(Policy{BaseDelay: time.Second, MaxWait: time.Minute}).Do(t.Context(), "GET /x", r.send); !errors.Is(err, errBusy) || len(r.times) != 1 {
			t.Errorf("MaxRetries 0: %d attempts, err %v", len(r.times), err)
		}
		r = &recorder{errs: []error{errBad}}
		if err := newClient(testPolicy).Do(t.Context(), "GET /x", r.send); !errors.Is(err, errBad) || len(r.times) != 1 {
			t.Errorf("permanent: %d attempts, err %v", len(r.times), err)
		}
	})
}

// TestBackoffCapped: the doubling stops at MaxWait.
func TestBackoffCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: repeat(errBusy, 10)}
		p := Policy{MaxRetries: 5, BaseDelay: time.Second, MaxWait: 5 * time.Second}
		_ = newClient(p).Do(t.Context(), "GET /x", r.send)
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
		if got := r.gaps(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("waits %v, want %v", got, want)
		}
	})
}

// TestHintHonoured: the platform's wait replaces the backoff, whatever the
// retry number; the jitter adds at most 10 %.
func TestHintHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{errSlow, errSlow}}
		if err := newClient(testPolicy).Do(t.Context(), "GET /x", r.send); err != nil {
			t.Fatal(err)
		}
		want := []time.Duration{hint + hint/10, hint + hint/10}
		if got := r.gaps(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("waits %v, want %v", got, want)
		}
	})
}

// TestHintTooLong: a platform wait longer than MaxWait is not waited: the
// error comes back at once.
func TestHintTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{errSlow}}
		start := time.Now()
		err := newClient(Policy{MaxRetries: 3, BaseDelay: time.Second, MaxWait: 2 * time.Second}).Do(t.Context(), "GET /x", r.send)
		if !errors.Is(err, errSlow) || len(r.times) != 1 || time.Since(start) != 0 {
			t.Errorf("err %v after %d attempts and %v, want the error at once", err, len(r.times), time.Since(start))
		}
	})
}

// TestDeadline: a wait that would end too near the deadline (less than
// BaseDelay left for the attempt) is not started: the platform's error,
// which says when to retry, comes back at once. A wait that fits is waited.
func TestDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		deadline time.Duration
		retried  bool
	}{
		{"hint past the deadline", errSlow, 2 * time.Second, false},
		{"hint ends less than BaseDelay before it", errSlow, hint + hint/10 + 500*time.Millisecond, false},
		{"hint fits", errSlow, hint + hint/10 + time.Second + time.Millisecond, true},
		{"backoff past the deadline", errBusy, 1500 * time.Millisecond, false},
		{"backoff fits", errBusy, 2*time.Second + time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tc.deadline)
				defer cancel()
				r := &recorder{errs: []error{tc.err}}
				start := time.Now()
				err := newClient(testPolicy).Do(ctx, "GET /x", r.send)
				switch {
				case tc.retried && (err != nil || len(r.times) != 2):
					t.Errorf("err %v after %d attempts, want a retry that succeeds", err, len(r.times))
				case !tc.retried && (!errors.Is(err, tc.err) || len(r.times) != 1 || time.Since(start) != 0):
					t.Errorf("err %v after %d attempts and %v, want the platform's error at once", err, len(r.times), time.Since(start))
				}
			})
		})
	}
}

// TestCancelledWhileWaiting: a wait ends when the context does, with its
// error.
func TestCancelledWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		r := &recorder{errs: []error{errSlow}}
		start := time.Now()
		err := newClient(testPolicy).Do(ctx, "GET /x", r.send)
		if !errors.Is(err, context.Canceled) || time.Since(start) != time.Second || len(r.times) != 1 {
			t.Errorf("err %v after %v and %d attempts, want context.Canceled after 1s", err, time.Since(start), len(r.times))
		}
	})
}

// TestContextErrorWins: an attempt that fails because its context ended
// returns the context's error, not the attempt's.
func TestContextErrorWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		err := newClient(testPolicy).Do(ctx, "GET /x", func(context.Context) error { cancel(); return errBusy })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// TestRetryNow: a failure the connector repaired is sent again at once and
// does not use up a retry.
func TestRetryNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errRefreshed := errors.New("token refreshed")
		c := newClient(Policy{MaxRetries: 1, BaseDelay: time.Second, MaxWait: time.Minute}, func(o *Options) {
			o.Classify = func(err error) Verdict {
				if errors.Is(err, errRefreshed) {
					return RetryNow
				}
				return classify(err)
			}
		})
		r := &recorder{errs: []error{errRefreshed, errBusy, errBusy}}
		err := c.Do(t.Context(), "GET /x", r.send)
		if !errors.Is(err, errBusy) || len(r.times) != 3 {
			t.Errorf("err %v after %d attempts, want 3 attempts (refresh, first, one retry)", err, len(r.times))
		}
		if g := r.gaps(); len(g) != 2 || g[0] != 0 || g[1] != time.Second {
			t.Errorf("waits %v, want [0s 1s]", g)
		}
	})
}

// TestRateLimit: attempts, retries included, wait for the token bucket, which
// holds over concurrent callers.
func TestRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newClient(Policy{MaxRetries: 1, BaseDelay: time.Millisecond, MaxWait: time.Second}, func(o *Options) {
			o.RequestsPerSecond, o.Burst = 10, 2
		})
		r := &recorder{}
		start := time.Now()
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				if err := c.Do(t.Context(), "GET /x", r.send); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		// A burst of 2, then one every 100 ms: the 6th at 400 ms.
		if el := time.Since(start); el != 400*time.Millisecond {
			t.Errorf("6 requests at 10/s with bursts of 2 took %v, want 400ms", el)
		}
		// A retry waits for the bucket too: 1 ms of backoff, then 100 ms for a token.
		r = &recorder{errs: []error{errBusy}}
		start = time.Now()
		if err := c.Do(t.Context(), "GET /x", r.send); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 100*time.Millisecond {
			t.Errorf("a retry right after a burst took %v: the rate limit was skipped", el)
		}
	})
}

// TestRateLimitPastDeadline: when the bucket cannot give a token before the
// deadline, Do fails at once instead of waiting.
func TestRateLimitPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newClient(testPolicy, func(o *Options) { o.RequestsPerSecond, o.Burst = 1, 1 })
		if err := c.Do(t.Context(), "GET /x", (&recorder{}).send); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		r := &recorder{}
		start := time.Now()
		if err := c.Do(ctx, "GET /x", r.send); err == nil || len(r.times) != 0 || time.Since(start) != 0 {
			t.Errorf("err %v after %v and %d attempts, want an error at once", err, time.Since(start), len(r.times))
		}
	})
}

// TestLogs: each retry and each retry given up is logged, with the request's
// label and the error redacted.
func TestLogs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		c := newClient(Policy{MaxRetries: 1, BaseDelay: time.Second, MaxWait: 2 * time.Second}, func(o *Options) {
			o.Logger = slog.New(slog.NewTextHandler(&buf, nil))
			o.Redact = func(s string) string { return strings.ReplaceAll(s, "s3cret", "[redacted]") }
		})
		secret := func(err error) func(context.Context) error {
			return func(context.Context) error { return fmt.Errorf("token s3cret: %w", err) }
		}
		_ = c.Do(t.Context(), "GET /busy", secret(errBusy))
		_ = c.Do(t.Context(), "GET /slow", secret(errSlow))
		log := buf.String()
		for _, want := range []string{"test request failed; retrying", "request=\"GET /busy\"", "attempt=1", "longer than the longest retry wait", "request=\"GET /slow\"", "[redacted]"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log does not say %q:\n%s", want, log)
			}
		}
		if strings.Contains(log, "s3cret") {
			t.Errorf("the log holds the secret:\n%s", log)
		}
	})
}

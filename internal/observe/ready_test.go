package observe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadyzRunsTheCheckOncePerTTL: 100 concurrent probes while a check is
// running, and 100 more after it answered, cost one check; once the result
// is older than the TTL the next probe runs it again. A failed check is
// reused the same way (an outage must not turn a probe flood into an
// upstream flood).
func TestReadyzRunsTheCheckOncePerTTL(t *testing.T) {
	var runs atomic.Int32
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	fail := atomic.Bool{}
	check := func(context.Context) error {
		runs.Add(1)
		started <- struct{}{}
		<-release
		if fail.Load() {
			return errors.New("the source does not answer")
		}
		return nil
	}
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	rc := Readyz(check, 10*time.Second, 5*time.Second).(*readyCache)
	rc.now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }

	probe := func() int {
		rec := httptest.NewRecorder()
		rc.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		return rec.Code
	}
	var wg sync.WaitGroup
	codes := make(chan int, 100)
	for range 100 {
		wg.Go(func() { codes <- probe() })
	}
	<-started // one run began; the others wait for it
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Fatalf("a probe got %d, want 200", c)
		}
	}
	for range 100 {
		if c := probe(); c != http.StatusOK {
			t.Fatalf("a cached probe got %d", c)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("200 probes within the TTL ran the check %d times, want 1", n)
	}

	fail.Store(true)
	clock.Lock()
	now = now.Add(5 * time.Second)
	clock.Unlock()
	for range 50 {
		if c := probe(); c != http.StatusServiceUnavailable {
			t.Fatalf("after the TTL, with the source down: %d, want 503", c)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("after the TTL the check ran %d times in all, want 2 (the failure is reused too)", n)
	}
}

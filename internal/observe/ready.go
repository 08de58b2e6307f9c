package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// DefaultReadyTTL is how long Readyz reuses a check's result. Probes come
// every few seconds from each load balancer and orchestrator, and anyone who
// can reach the port may send more: the check behind them (a source's account
// list, perhaps an ad platform's API) must not run once per probe.
const DefaultReadyTTL = 5 * time.Second

// Readyz answers readiness probes: 200 {"status":"ready"} when check
// returns nil within timeout, else 503 {"status":"not ready","reason":…}.
// The reason is the first line of check's error, at most 120 bytes, or
// "check timed out after …": check must return errors that hold no secrets
// (no DSNs, tokens or keys). A nil check is always ready.
//
// The check runs at most once per ttl (DefaultReadyTTL when 0; negative: on
// every probe), and probes that arrive while it runs wait for that one run
// (single flight): a flood of probes costs one check per ttl. The result,
// ready or not, is reused for ttl. check runs with its own context, ending at
// the timeout — not the probe's, so a probe that hangs up does not cancel the
// run others wait for — and the answer comes at the timeout even if check
// ignores it.
func Readyz(check func(context.Context) error, timeout, ttl time.Duration) http.Handler {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if ttl == 0 {
		ttl = DefaultReadyTTL
	}
	return &readyCache{check: check, timeout: timeout, ttl: ttl, now: time.Now}
}

func (c *readyCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := c.status(r.Context())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"status": "not ready", "reason": shortReason(err)})
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"status": "ready"})
}

// readyCache runs a readiness check at most once per ttl.
type readyCache struct {
	check   func(context.Context) error
	timeout time.Duration
	ttl     time.Duration
	now     func() time.Time
	flight  singleflight.Group

	mu  sync.Mutex
	at  time.Time // when the last result came; zero: none yet
	err error
}

// status is the last result while fresh, else a new run's (shared with the
// probes that arrive meanwhile). A probe that gives up before the run ends
// gets its own context's error; the run goes on for the others.
func (c *readyCache) status(ctx context.Context) error {
	if c.check == nil {
		return nil
	}
	if fresh, err := c.cached(); fresh {
		return err
	}
	ch := c.flight.DoChan("ready", func() (any, error) {
		// A probe that found the result stale may get here just after a run
		// ended (and left the flight): that run's result is fresh, use it.
		if fresh, err := c.cached(); fresh {
			return nil, err
		}
		err := c.run()
		c.mu.Lock()
		c.at, c.err = c.now(), err
		c.mu.Unlock()
		return nil, err
	})
	select {
	case res := <-ch:
		return res.Err
	case <-ctx.Done():
		return fmt.Errorf("probe ended before the check: %w", ctx.Err())
	}
}

// cached says whether the last result is younger than the TTL, and what it
// was.
func (c *readyCache) cached() (fresh bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && c.ttl > 0 && c.now().Sub(c.at) < c.ttl {
		return true, c.err
	}
	return false, nil
}

// run is one check, bounded by the timeout.
func (c *readyCache) run() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	done := make(chan error, 1) // buffered: a late check never blocks
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- errors.New("check panicked")
			}
		}()
		done <- c.check(ctx)
	}()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("check timed out after %v", c.timeout)
		}
		return err
	case <-ctx.Done():
		return fmt.Errorf("check timed out after %v", c.timeout)
	}
}

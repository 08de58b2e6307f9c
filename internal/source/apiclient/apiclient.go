// Package apiclient is the one retrying HTTP client of the ad-platform
// connectors (Meta, Google Ads): a per-connector rate limiter, a retry loop
// with capped exponential backoff and jitter that honours the platform's own
// wait hints, a deadline check that fails at once instead of waiting out a
// wait that would end past the query's deadline, and the counting of every
// HTTP request in _meta.source_calls.
//
// What a failure means stays with each platform: a connector passes a
// Classify function that says whether an error may succeed if sent again, and
// after how long the platform asked to wait (Retry-After, Meta's usage
// headers, Google's retryDelay). Everything else is the same for every
// platform, so a new connector gets the same retries by writing only that
// function.
package apiclient

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"golang.org/x/time/rate"
)

// Options configure a Client.
type Options struct {
	// Name is the platform as logs say it: "meta", "google ads".
	Name string
	// RequestsPerSecond bounds the rate of attempts over every caller of the
	// Client (a token bucket); zero or negative: no limit.
	RequestsPerSecond float64
	// Burst is the token bucket's size (default: a second's worth of
	// RequestsPerSecond, at least 1).
	Burst int
	// Policy says how often and how long to retry.
	Policy Policy
	// Classify says what a failed attempt means (nil: nothing is retried).
	Classify func(error) Verdict
	// Logger receives a warning per retry and per retry given up (default:
	// discarded).
	Logger *slog.Logger
	// Redact removes secrets from an error's text before it is logged
	// (default: the text as is).
	Redact func(string) string
}

// Client sends requests for one connector, retrying them as its Options say.
// It is safe for concurrent use: the rate limit holds over all its callers.
type Client struct {
	name     string
	limiter  *rate.Limiter // nil: no limit
	policy   Policy
	classify func(error) Verdict
	log      *slog.Logger
	redact   func(string) string
	// jitter is a random duration in [0, d]; tests replace it to pin the
	// bounds.
	jitter func(d time.Duration) time.Duration
}

// New returns a Client. The Policy is used as given: apply the connector's
// defaults first with Policy.Or.
func New(opts Options) *Client {
	c := &Client{name: opts.Name, policy: opts.Policy, classify: opts.Classify, log: opts.Logger,
		redact: opts.Redact, jitter: randomUpTo}
	if opts.RequestsPerSecond > 0 {
		burst := opts.Burst
		if burst <= 0 {
			burst = max(1, int(opts.RequestsPerSecond))
		}
		c.limiter = rate.NewLimiter(rate.Limit(opts.RequestsPerSecond), burst)
	}
	if c.classify == nil {
		c.classify = func(error) Verdict { return Permanent }
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.redact == nil {
		c.redact = func(s string) string { return s }
	}
	return c
}

// Do calls send until it succeeds, Classify calls its error permanent, the
// retries are spent, the wait the platform asks for is longer than
// Policy.MaxWait, or the wait would end too near ctx's deadline for another
// attempt (the wait plus Policy.BaseDelay must end before it). Every attempt
// first waits for the rate limiter. Do returns nil, send's last error (so a
// rate-limit error that cannot be waited out comes back at once, with the
// wait it carries), ctx's error, or the rate limiter's.
//
// label names the request in logs (no secrets: a method and a path).
func (c *Client) Do(ctx context.Context, label string, send func(context.Context) error) error {
	for retries := 0; ; {
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return err
			}
		}
		err := send(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		v := c.classify(err)
		switch {
		case v.now:
			continue
		case !v.retry || retries >= c.policy.MaxRetries:
			return err
		}
		wait, ok := c.wait(v, retries)
		if !ok {
			c.log.Warn(c.name+" request failed; the wait it asks for is longer than the longest retry wait",
				"request", label, "error", c.redact(err.Error()), "wait", v.after, "max_wait", c.policy.MaxWait)
			return err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait+c.policy.BaseDelay {
			c.log.Warn(c.name+" request failed; no time left to retry before the deadline",
				"request", label, "error", c.redact(err.Error()), "wait", wait)
			return err
		}
		retries++
		c.log.Warn(c.name+" request failed; retrying", "request", label, "attempt", retries, "wait", wait,
			"error", c.redact(err.Error()))
		if err := Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// Sleep waits d, or until ctx ends (then it returns ctx's error): the one
// way a connector waits, for a retry or between polls.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// randomUpTo is a uniformly random duration in [0, d].
func randomUpTo(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

package mcpserver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
)

// countingSource counts Accounts calls and fails them while failing is set.
type countingSource struct {
	source.Source
	calls   int
	failing bool
}

func (c *countingSource) Accounts(context.Context) ([]ads.Account, error) {
	c.calls++
	if c.failing {
		return nil, errors.New("unreachable")
	}
	return []ads.Account{{AccountID: "act_1", Platform: "meta_ads"}}, nil
}

// TestAccountsAreReusedForTheirTTL: the list is asked once per TTL; failures
// are not remembered; the copy handed out cannot change the cache.
func TestAccountsAreReusedForTheirTTL(t *testing.T) {
	src := &countingSource{failing: true}
	clock := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	c := &accountCache{src: src, ttl: time.Minute, now: func() time.Time { return clock }}
	ctx := context.Background()
	if _, err := c.Accounts(ctx); err == nil {
		t.Fatal("a failing source answered")
	}
	src.failing = false
	a, err := c.Accounts(ctx)
	if err != nil || src.calls != 2 {
		t.Fatalf("after a failure the source is asked again: %d calls, %v", src.calls, err)
	}
	a[0].AccountID = "changed by a caller"
	clock = clock.Add(59 * time.Second)
	b, _ := c.Accounts(ctx)
	if src.calls != 2 || b[0].AccountID != "act_1" {
		t.Errorf("within the TTL: %d calls, %v", src.calls, b)
	}
	clock = clock.Add(2 * time.Second)
	c.Accounts(ctx)
	if src.calls != 3 {
		t.Errorf("after the TTL: %d calls, want 3", src.calls)
	}
	c.ttl = -1
	c.Accounts(ctx)
	c.Accounts(ctx)
	if src.calls != 5 {
		t.Errorf("negative TTL: %d calls, want 5", src.calls)
	}
}

// coverageSource counts Coverage calls.
type coverageSource struct {
	countingSource
	asked [][]string
}

func (c *coverageSource) Coverage(_ context.Context, ids []string) (map[string]source.Coverage, error) {
	c.asked = append(c.asked, ids)
	out := map[string]source.Coverage{}
	for _, id := range ids {
		if id == "act_1" {
			out[id] = source.Coverage{First: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Last: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)}
		}
	}
	return out, nil
}

// Coverage passes through the cache (and the principal's scope) and is
// reused for the TTL, accounts without data included; a source that cannot
// say gives an error, never an empty answer.
func TestCoverageIsCachedAndScoped(t *testing.T) {
	src := &coverageSource{}
	clock := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	c := &accountCache{src: src, ttl: time.Minute, now: func() time.Time { return clock }}
	ctx := context.Background()
	for range 2 {
		got, err := c.Coverage(ctx, []string{"act_1", "act_2"})
		if err != nil || len(got) != 1 || got["act_1"].Last.Day() != 14 {
			t.Fatalf("coverage %v, %v", got, err)
		}
	}
	if len(src.asked) != 1 {
		t.Errorf("asked %v, want once", src.asked)
	}
	clock = clock.Add(2 * time.Minute)
	c.Coverage(ctx, []string{"act_2"})
	if len(src.asked) != 2 {
		t.Errorf("after the TTL: asked %v", src.asked)
	}
	var _ source.CoverageSource = scoped{}
	plain := &accountCache{src: &countingSource{}, ttl: time.Minute, now: time.Now}
	if _, err := plain.Coverage(ctx, []string{"act_1"}); err == nil {
		t.Error("a source without coverage answered")
	}
}

// setAccountsClock sets the clock the account list ages by.
func setAccountsClock(s *server, now func() time.Time) { s.accounts.now = now }

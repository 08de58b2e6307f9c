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
// reused for a minute, accounts without data included; a source that cannot
// say gives an error, never an empty answer.
func TestCoverageIsCachedAndScoped(t *testing.T) {
	src := &coverageSource{}
	clock := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	c := newAccountCache(src, 0, nil)
	t.Cleanup(func() { c.stop(context.Background()) })
	c.now = func() time.Time { return clock }
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
	plain := newAccountCache(&countingSource{}, 0, nil)
	t.Cleanup(func() { plain.stop(context.Background()) })
	if _, err := plain.Coverage(ctx, []string{"act_1"}); err == nil {
		t.Error("a source without coverage answered")
	}
}

// setAccountsClock sets the clock the account list ages by.
func setAccountsClock(s *server, now func() time.Time) { s.accounts.now = now }

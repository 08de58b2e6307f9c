package synced

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/syncer"
)

// Schedule runs a sync when it starts and then every Every after the end of
// the last run, never two at once: a server keeping its warehouse fresh
// (sync.every, docs/sync.md).
type Schedule struct {
	Every time.Duration
	// Run is one sync run (syncer.Run with the server's options).
	Run func(ctx context.Context) (*syncer.Result, error)
	Log *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu      sync.Mutex
	next    time.Time
	running bool
}

// Start runs the schedule in the background until stop, which cancels a run
// in progress (its open chunk rolls back: the warehouse keeps what it held
// before it) and waits for it to end.
func (s *Schedule) Start(ctx context.Context) (stop func()) {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			s.runOnce(ctx)
			s.mu.Lock()
			s.next, s.running = s.Now().Add(s.Every), false
			s.mu.Unlock()
			t := time.NewTimer(s.Every)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

func (s *Schedule) runOnce(ctx context.Context) {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	res, err := s.Run(ctx)
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		s.Log.Info("sync stopped with the server; the next start goes on from the last month written")
		return
	case err != nil:
		s.Log.Error("sync failed", "error", err, "next_in", s.Every)
		return
	}
	var days int
	var rows, requests int64
	for _, a := range res.Accounts {
		days += a.Days
		rows += a.Rows
		requests += a.Requests
		if a.Error != "" {
			s.Log.Warn("sync: an account failed; its earlier data stays", "platform", a.Platform, "account", a.AccountID,
				"error", a.Error, "fix", a.Fix, "synced_from", a.SyncedFrom, "synced_through", a.SyncedThrough)
		}
	}
	s.Log.Info("sync done", "target", res.Target, "accounts", len(res.Accounts), "failed", res.Failed(),
		"days", days, "rows", rows, "requests", requests, "seconds", res.Seconds, "next_in", s.Every)
}

// NextSync is when the next run starts: zero while one runs (or before the
// first has ended).
func (s *Schedule) NextSync() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return time.Time{}
	}
	return s.next
}

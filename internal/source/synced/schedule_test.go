package synced

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adsmcp/adsmcp/internal/syncer"
)

// TestScheduleRunsAtStartThenEvery: a run at once, the next Every after it
// ends, never two at once; NextSync says when; stop cancels a run.
func TestScheduleRunsAtStartThenEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs, inRun atomic.Int32
		release := make(chan struct{})
		var starts []time.Time
		s := &Schedule{Every: time.Hour, Run: func(ctx context.Context) (*syncer.Result, error) {
			if inRun.Add(1) != 1 {
				t.Error("two runs at once")
			}
			defer inRun.Add(-1)
			starts = append(starts, time.Now())
			if runs.Add(1) == 3 {
				<-ctx.Done() // the third run is still going when the server stops
				close(release)
				return nil, ctx.Err()
			}
			time.Sleep(10 * time.Minute) // a run takes time (the bubble's clock)
			return &syncer.Result{}, nil
		}}
		began := time.Now()
		stop := s.Start(context.Background())
		synctest.Wait()
		if runs.Load() != 1 || !s.NextSync().IsZero() {
			t.Fatalf("at start: %d runs, next %s; want 1 run in progress, no next time", runs.Load(), s.NextSync())
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if want := began.Add(70 * time.Minute); !s.NextSync().Equal(want) {
			t.Errorf("next sync %s, want %s (an hour after the run ended)", s.NextSync(), want)
		}
		time.Sleep(2*time.Hour + 15*time.Minute) // the second run at 1h10m, the third at 2h20m
		synctest.Wait()
		if runs.Load() != 3 {
			t.Fatalf("%d runs after 2h25m, want 3", runs.Load())
		}
		if got := starts[1].Sub(starts[0]); got != 70*time.Minute {
			t.Errorf("the second run started %s after the first, want 1h10m", got)
		}
		stop()
		<-release
	})
}

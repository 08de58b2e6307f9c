package postgres

import (
	"context"
	"testing"
	"time"
)

// The statement timeout is what is left of the call's deadline, never 0 (which
// PostgreSQL reads as no timeout), else the configured default.
func TestTimeoutMillis(t *testing.T) {
	now := time.Now()
	if got := timeoutMillis(context.Background(), 0, now); got != 0 {
		t.Errorf("no deadline, no default: %d", got)
	}
	if got := timeoutMillis(context.Background(), 3*time.Second, now); got != 3000 {
		t.Errorf("no deadline, default 3s: %d", got)
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(1500*time.Millisecond+300*time.Microsecond))
	defer cancel()
	if got := timeoutMillis(ctx, time.Minute, now); got != 1501 {
		t.Errorf("deadline in 1.5003s: %d", got)
	}
	past, cancel2 := context.WithDeadline(context.Background(), now.Add(-time.Second))
	defer cancel2()
	if got := timeoutMillis(past, 0, now); got != 1 {
		t.Errorf("deadline passed: %d", got)
	}
}

package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressInterval is how often a call that asked for progress hears
// that it is still running. Clients that reset their timeout on progress (the
// TypeScript SDK's resetTimeoutOnProgress) then keep waiting up to the deadline.
const DefaultProgressInterval = 5 * time.Second

// progress sends MCP progress notifications for one call whose request carried
// a progress token: at the start, at each step the engine reports, and every
// interval while nothing changes. Progress is the seconds elapsed, Total the
// deadline in seconds — the most the call can take. Sending happens in its own
// goroutine, so a slow client never slows the work.
type progress struct {
	mu     sync.Mutex
	stage  string
	wake   chan struct{}
	stopCh chan struct{}
	done   chan struct{}
}

// startProgress starts reporting for req, or returns nil when the client did
// not ask for progress. stop must be called when the call ends.
func (s *server) startProgress(ctx context.Context, req *mcp.CallToolRequest, started time.Time) *progress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	p := &progress{stage: "checking the query", wake: make(chan struct{}, 1), stopCh: make(chan struct{}), done: make(chan struct{})}
	interval := s.cfg.ProgressInterval
	if interval <= 0 {
		interval = DefaultProgressInterval
	}
	total := s.cfg.Deadline.Seconds()
	go func() {
		defer close(p.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		last := -1.0
		send := func() {
			p.mu.Lock()
			stage := p.stage
			p.mu.Unlock()
			elapsed := time.Since(started).Seconds()
			if elapsed <= last { // progress must increase with every notification
				elapsed = last + 0.001
			}
			last = elapsed
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      elapsed,
				Total:         total,
				Message:       fmt.Sprintf("%s (%.1fs of at most %.0fs)", stage, elapsed, total),
			})
			if err != nil {
				s.log.Debug("progress notification failed", "error", err)
			}
		}
		send()
		for {
			select {
			case <-p.stopCh:
				return
			case <-ctx.Done():
				return
			case <-p.wake:
			case <-tick.C:
			}
			send()
		}
	}()
	return p
}

// report records the current step and sends it at once (without waiting).
func (p *progress) report(stage string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.stage = stage
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // a notification is already due
	}
}

// stop ends the reports; none is sent after stop returns, so none follows the
// call's answer.
func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.stopCh)
	<-p.done
}

type progressKey struct{}

// reporterFrom is the step reporter of the call running in ctx (a no-op when
// the client asked for no progress).
func reporterFrom(ctx context.Context) func(string) {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p.report
}

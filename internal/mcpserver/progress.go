package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressInterval is how often a call that asked for progress hears
// that it is still running. Clients that reset their timeout on progress (the
// TypeScript SDK's resetTimeoutOnProgress) then keep waiting up to the deadline.
const DefaultProgressInterval = 5 * time.Second

// progress sends MCP progress notifications for one call whose request carried
// a progress token: at the start, at each step the engine reports, and every
// interval while a step lasts. Progress is the seconds elapsed, Total the
// deadline in seconds — the most the call can take. Sending happens in its own
// goroutine, so a slow client never slows the work.
type progress struct {
	steps  chan string // reported steps, in order, not yet sent
	stopCh chan struct{}
	done   chan struct{}
}

// maxPendingSteps bounds the steps waiting to be sent; a call reports a
// handful, so more means the client is not reading, and later ones are dropped.
const maxPendingSteps = 16

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
	p := &progress{steps: make(chan string, maxPendingSteps), stopCh: make(chan struct{}), done: make(chan struct{})}
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
		stage := "checking the query"
		send := func() {
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
				// The steps reported before the answer go out before it.
				for {
					select {
					case stage = <-p.steps:
						send()
					default:
						return
					}
				}
			case <-ctx.Done():
				return
			case stage = <-p.steps:
			case <-tick.C:
			}
			send()
		}
	}()
	return p
}

// report queues the current step to be sent at once (without waiting).
func (p *progress) report(stage string) {
	if p == nil {
		return
	}
	select {
	case p.steps <- stage:
	default: // the client is not keeping up: the heartbeat will do
	}
}

// stop sends the steps still queued and ends the reports; none is sent after
// stop returns, so none follows the call's answer.
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

package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// slowSource answers like the warehouse after a delay.
type slowSource struct {
	*blockingSource
	delay time.Duration
}

func (s slowSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.blockingSource.Source.Query(ctx, q)
}

// TestProgressNotifications: a call that carries a progress token hears what
// the call is doing, at the start, at each step and while the source works,
// with increasing progress out of the deadline; nothing arrives after the
// answer; a call without a token hears nothing.
//
// The test runs in a synctest bubble: its clock moves only when every
// goroutine of the call waits, so the heartbeats are exactly those due, and a
// reporter left running after the answer would be seen for certain.
func TestProgressNotifications(t *testing.T) {
	cfg := testConfig(t) // the shared warehouse opens outside the bubble
	cfg.Source = slowSource{newBlockingSource(t, false, false), 400 * time.Millisecond}
	cfg.ProgressInterval = 100 * time.Millisecond
	cfg.Deadline = 20 * time.Second
	synctest.Test(t, func(t *testing.T) { testProgressNotifications(t, cfg) })
}

func testProgressNotifications(t *testing.T, cfg Config) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	params := &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(small)}
	params.SetProgressToken("call-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	time.Sleep(300 * time.Millisecond) // three heartbeats later, on the bubble's clock
	synctest.Wait()                    // anything sent late has been handled
	mu.Lock()
	seen := append([]*mcp.ProgressNotificationParams(nil), got...)
	mu.Unlock()
	if len(seen) < 4 { // start, querying, ≥2 heartbeats while the source sleeps, fitting
		t.Fatalf("%d notifications, want at least 4: %+v", len(seen), seen)
	}
	var msgs []string
	for i, p := range seen {
		if p.ProgressToken != "call-1" || p.Total != 20 {
			t.Errorf("notification %d: token %v total %v", i, p.ProgressToken, p.Total)
		}
		if i > 0 && p.Progress <= seen[i-1].Progress {
			t.Errorf("progress went %v → %v", seen[i-1].Progress, p.Progress)
		}
		msgs = append(msgs, p.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, step := range []string{"checking the query", "querying 6 account(s), 2026-03-08 to 2026-03-14", "fitting"} {
		if !strings.Contains(all, step) {
			t.Errorf("no %q step in:\n%s", step, all)
		}
	}

	mu.Lock()
	got = nil
	mu.Unlock()
	call(t, cs, "query", small)
	time.Sleep(200 * time.Millisecond)
	synctest.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("a call without a progress token got %d notifications", len(got))
	}
}

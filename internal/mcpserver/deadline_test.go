package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// blockingSource answers accounts from the warehouse (unless blockAccounts) and
// never answers a query: it waits for its context to end (and records that), or,
// with ignoreCtx, ignores cancellation until the test ends.
type blockingSource struct {
	source.Source
	blockAccounts bool
	ignoreCtx     bool
	release       chan struct{}

	once      sync.Once
	cancelled chan struct{}

	enterOnce sync.Once
	entered   chan struct{} // closed when a call first waits in the source
}

func newBlockingSource(t *testing.T, ignoreCtx, blockAccounts bool) *blockingSource {
	b := &blockingSource{Source: warehouse(t), ignoreCtx: ignoreCtx, blockAccounts: blockAccounts,
		release: make(chan struct{}), cancelled: make(chan struct{}), entered: make(chan struct{})}
	shutdown = append(shutdown, func() { close(b.release) })
	return b
}

func (b *blockingSource) block(ctx context.Context) error {
	b.enterOnce.Do(func() { close(b.entered) })
	if b.ignoreCtx {
		<-b.release
		return errors.New("released at the end of the tests")
	}
	<-ctx.Done()
	b.once.Do(func() { close(b.cancelled) })
	return ctx.Err()
}

func (b *blockingSource) Accounts(ctx context.Context) ([]ads.Account, error) {
	if b.blockAccounts {
		return nil, b.block(ctx)
	}
	return b.Source.Accounts(ctx)
}

func (b *blockingSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	return nil, b.block(ctx)
}

const slow = `{` + six + `,"metrics":["spend","clicks"],"dimensions":["campaign_name","ad_name"],"time_granularity":"daily","date_preset":"last_90d"}`

// TestTimeout: a source that does not answer ⇒ a timeout answer within the
// deadline + 1 s, the source's context cancelled, and narrower queries that run.
func TestTimeout(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		name := "source honours cancellation"
		if ignore {
			name = "source ignores cancellation"
		}
		t.Run(name, func(t *testing.T) {
			src := newBlockingSource(t, ignore, false)
			cfg := testConfig(t)
			cfg.Source, cfg.Deadline = src, 300*time.Millisecond
			cs := connect(t, cfg, "claude-code")
			start := time.Now()
			res := call(t, cs, "query", slow)
			took := time.Since(start)
			if took < cfg.Deadline || took > cfg.Deadline+Grace {
				t.Errorf("answered after %v; deadline %v", took, cfg.Deadline)
			}
			body := errorOf(t, res, "timeout")
			if body["deadline_seconds"] != 0.3 || body["elapsed_ms"].(float64) < 300 {
				t.Errorf("deadline_seconds %v, elapsed_ms %v", body["deadline_seconds"], body["elapsed_ms"])
			}
			if !ignore {
				select {
				case <-src.cancelled:
				case <-time.After(time.Second):
					t.Error("the source's context was not cancelled")
				}
			}
			if q, _ := body["_meta"].(map[string]any)["query"].(map[string]any); q == nil || q["time_granularity"] != "daily" {
				t.Errorf("_meta.query %v", body["_meta"])
			}
			sugg, _ := body["suggestions"].([]any)
			var descs []string
			for _, s := range sugg {
				descs = append(descs, s.(map[string]any)["description"].(string))
			}
			all := strings.Join(descs, " | ")
			for _, want := range []string{"The last 23 days only", "Without ad_name (grouped by campaign_name)", "weekly instead of daily", "One account at a time"} {
				if !strings.Contains(all, want) {
					t.Errorf("no suggestion %q in %s", want, all)
				}
			}
			// Every suggestion is a complete query the real warehouse answers.
			real := connect(t, testConfig(t), "ChatGPT")
			for _, s := range sugg {
				raw, _ := json.Marshal(s.(map[string]any)["query"])
				if r := call(t, real, "query", string(raw)); r.IsError {
					t.Errorf("suggestion %s failed: %v", raw, texts(t, r))
				}
			}
		})
	}
}

// TestTimeoutBeforeAnyAccounts: when even the account list does not come, both
// list_accounts and query answer timeout in time (query without suggestions, as
// it cannot be normalized).
func TestTimeoutBeforeAnyAccounts(t *testing.T) {
	src := newBlockingSource(t, true, true)
	cfg := testConfig(t)
	cfg.Source, cfg.Deadline = src, 200*time.Millisecond
	cs := connect(t, cfg, "claude-ai")
	for tool, args := range map[string]string{"list_accounts": `{}`, "query": slow} {
		start := time.Now()
		res := call(t, cs, tool, args)
		if took := time.Since(start); took > cfg.Deadline+Grace {
			t.Errorf("%s answered after %v", tool, took)
		}
		body := errorOf(t, res, "timeout")
		if body["deadline_seconds"] != 0.2 || body["suggestions"] != nil {
			t.Errorf("%s: %v", tool, body)
		}
	}
	// list_fields needs no source.
	if res := call(t, cs, "list_fields", `{}`); res.IsError {
		t.Errorf("list_fields: %v", texts(t, res))
	}
}

// TestClientCancelStopsTheWork: a client that cancels its call cancels the
// source's work.
func TestClientCancelStopsTheWork(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source = src
	cs := connect(t, cfg, "claude-code")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(slow)})
	if err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	select {
	case <-src.cancelled:
	case <-time.After(2 * time.Second):
		t.Error("the source's context was not cancelled after the client cancelled")
	}
	// The session still serves.
	if res := call(t, cs, "list_fields", `{}`); res.IsError {
		t.Errorf("list_fields after a cancel: %v", texts(t, res))
	}
}

// panicSource panics on every query.
type panicSource struct{ source.Source }

func (panicSource) Query(context.Context, *query.Query) (*fit.Table, error) {
	panic("boom")
}

func TestPanicAnswersInternalError(t *testing.T) {
	cfg := testConfig(t)
	cfg.Source = panicSource{warehouse(t)}
	cs := connect(t, cfg, "claude-code")
	body := errorOf(t, call(t, cs, "query", small), "internal_error")
	if strings.Contains(body["detail"].(string), "boom") {
		t.Errorf("internal details leak to the model: %v", body)
	}
	if res := call(t, cs, "list_accounts", `{}`); res.IsError {
		t.Errorf("the server stopped serving after a panic: %v", texts(t, res))
	}
}

// TestTimeoutFitsTheBudget: a timeout answer echoes the query and repeats it in
// every suggestion; with a 1,000-value IN list that used to be tens of
// thousands of tokens. It fits the client's budget like every answer.
func TestTimeoutFitsTheBudget(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source, cfg.Deadline = src, 200*time.Millisecond
	cs := connect(t, cfg, "claude-code")
	var names []string
	for i := range 1000 {
		names = append(names, `"Campaign with a long and descriptive name number `+strings.Repeat("x", i%40)+`"`)
	}
	args := strings.Replace(slow, `"metrics"`, `"filters":[{"field":"campaign_name","operator":"IN","value":[`+strings.Join(names, ",")+`]}],"metrics"`, 1)
	res := call(t, cs, "query", args)
	body := errorOf(t, res, "timeout")
	n := fit.NewO200k().Exact(texts(t, res)[0])
	if n > 21250 { // claude-code's 25,000 less its tokenizer margin
		t.Errorf("timeout answer is %d o200k tokens, over claude-code's budget", n)
	}
	if body["suggestions"] == nil {
		t.Errorf("no suggestion left: %v", body)
	}
}

package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/ads"
)

func TestResources(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 3 {
		t.Fatalf("resources/list: %v %+v", err, list)
	}
	want := map[string]string{
		"adsmcp://guide":    "time_granularity",
		"adsmcp://fields":   "name,kind,type,aggregation",
		"adsmcp://accounts": "platform,account_id,account_name,currency,timezone,status,attribution_window,conversion_actions\n",
	}
	for _, r := range list.Resources {
		if r.Name == "" || r.Description == "" || r.MIMEType == "" {
			t.Errorf("%s: incomplete definition %+v", r.URI, r)
		}
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil || len(got.Contents) != 1 {
			t.Fatalf("read %s: %v", r.URI, err)
		}
		c := got.Contents[0]
		if c.URI != r.URI || c.MIMEType != r.MIMEType || !strings.Contains(c.Text, want[r.URI]) {
			t.Errorf("read %s: %s %q", r.URI, c.MIMEType, c.Text)
		}
		if r.URI == "adsmcp://accounts" && strings.Count(c.Text, "\n") != 15 {
			t.Errorf("accounts: want the header and 14 accounts:\n%s", c.Text)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "adsmcp://nope"}); err == nil {
		t.Error("an unknown resource was read")
	}
}

// TestPromptsRun: every prompt, with its defaults and with arguments, expands
// to a question whose query arguments run as they are.
func TestPromptsRun(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 4 {
		t.Fatalf("prompts/list: %v %+v", err, list)
	}
	for _, p := range list.Prompts {
		if p.Description == "" || len(p.Arguments) == 0 {
			t.Errorf("%s: incomplete definition", p.Name)
		}
		for _, args := range []map[string]string{nil, {"period": "Last Month", "platform": "Google"}} {
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
			if err != nil || len(got.Messages) != 1 {
				t.Fatalf("%s %v: %v", p.Name, args, err)
			}
			text := got.Messages[0].Content.(*mcp.TextContent).Text
			var queries []string
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "{") {
					queries = append(queries, line)
				}
			}
			// 14 accounts, at most 10 per query: one query per platform; 5
			// Google accounts: one query.
			if want := map[bool]int{true: 3, false: 1}[args == nil]; len(queries) != want {
				t.Fatalf("%s %v: %d queries, want %d:\n%s", p.Name, args, len(queries), want, text)
			}
			for _, q := range queries {
				res := call(t, cs, "query", q)
				if res.IsError {
					t.Errorf("%s %v: its query fails: %v", p.Name, args, texts(t, res))
				}
				// The comparison prompt's query answers a comparison.
				if p.Name == "period_over_period" && !strings.Contains(strings.Join(texts(t, res), "\n"), `"comparison":{"mode":"previous_period"`) {
					t.Errorf("%s: its answer is no comparison: %.600s", p.Name, texts(t, res))
				}
			}
			if args != nil && (!strings.Contains(queries[0], `"date_preset":"last_month"`) || !strings.Contains(queries[0], `"platforms":["google_ads"]`) || !strings.Contains(text, "Google Ads")) {
				t.Errorf("%s: arguments not applied: %s", p.Name, text)
			}
		}
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "period_over_period", Arguments: map[string]string{"compare": "Previous Year"}})
	if err != nil || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, `"compare":"previous_year"`) {
		t.Errorf("period_over_period with compare previous_year: %v %+v", err, got)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "period_over_period", Arguments: map[string]string{"compare": "last decade"}}); err == nil || !strings.Contains(err.Error(), "previous_period or previous_year") {
		t.Errorf("a bad compare: %v", err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "spend_summary", Arguments: map[string]string{"period": "fortnight", "colour": "red"}})
	if err == nil || !strings.Contains(err.Error(), `period "fortnight": want one of today`) || !strings.Contains(err.Error(), `unknown argument "colour"`) {
		t.Errorf("bad arguments: %v", err)
	}
}

// TestClientLogging: a client that sets a log level hears how calls went, at
// the level their outcome deserves; one that sets none hears nothing.
//
// The test runs in a synctest bubble, so "nothing heard" is certain: logs
// looks once every goroutine of the session waits.
func TestClientLogging(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t) // the shared warehouse opens outside the bubble
	cfg.Source, cfg.Deadline = src, 300*time.Millisecond
	synctest.Test(t, func(t *testing.T) { testClientLogging(t, cfg) })
}

func testClientLogging(t *testing.T, cfg Config) {
	var mu sync.Mutex
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	var got []*mcp.LoggingMessageParams
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-ai"}, &mcp.ClientOptions{
		//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r.Params)
		},
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // logging/setLevel ended with 2026-07-28
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	logs := func() []*mcp.LoggingMessageParams {
		synctest.Wait() // every message sent so far has been handled
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	call(t, cs, "list_fields", `{}`)
	if l := logs(); len(l) != 0 {
		t.Errorf("before logging/setLevel: %d messages", len(l))
	}
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "list_fields", `{}`)
	if l := logs(); len(l) != 1 || l[0].Level != "debug" || l[0].Data.(map[string]any)["outcome"] != "ok" {
		t.Errorf("debug: %+v", l)
	}
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "list_fields", `{}`)
	call(t, cs, "query", slow)
	l := logs()
	if len(l) != 1 || l[0].Level != "warning" || l[0].Data.(map[string]any)["outcome"] != "timeout" {
		t.Errorf("warning: %+v", l)
	}
}

// TestQueryLinesGroupAccounts: more accounts than one query takes are split
// per platform, and a platform with too many into groups of account_ids.
func TestQueryLinesGroupAccounts(t *testing.T) {
	var accts []ads.Account
	for i := range 23 {
		accts = append(accts, ads.Account{AccountID: fmt.Sprintf("act_%d", i), Platform: "meta_ads"})
	}
	accts = append(accts, ads.Account{AccountID: "g1", Platform: "google_ads"})
	args := func(promptArgs) map[string]any { return map[string]any{"metrics": []string{"spend"}} }
	text := queryLines(promptArgs{Period: "last_7d"}, args, accts, 10)
	lines := strings.Split(strings.TrimSpace(text), "\n")[1:]
	want := []string{
		`"account_ids":["act_0",`, `"account_ids":["act_10",`, `"account_ids":["act_20","act_21","act_22"]`, `"platforms":["google_ads"]`,
	}
	if len(lines) != len(want) || !strings.Contains(text, "24 accounts") {
		t.Fatalf("got:\n%s", text)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || strings.Count(lines[i], "act_") > 10 {
			t.Errorf("line %d: %s, want %s", i, lines[i], w)
		}
	}
}

// TestResourceCacheScope: a resource whose content depends on the caller (the
// accounts, fitted to the client's budget) is cacheable only by that caller's
// own client, and never reused without asking again; one that is the same for
// every caller is public. The SDK fills an unset scope with "public", so a
// forgotten scope would fail here. Both protocols carry the fields; the SDK
// client caches only under 2026-07-28.
func TestResourceCacheScope(t *testing.T) {
	want := map[string]struct {
		scope string
		ttl   bool // a positive ttlMs
	}{
		"adsmcp://guide":    {"public", true},
		"adsmcp://fields":   {"public", true},
		"adsmcp://accounts": {"private", false},
	}
	for _, version := range []string{"", "2026-07-28"} {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := New(testConfig(t)).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "test"}, nil).
			Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		for uri, w := range want {
			got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("protocol %q, read %s: %v", version, uri, err)
			}
			if got.CacheScope != w.scope || (got.TTLMs > 0) != w.ttl {
				t.Errorf("protocol %q, %s: cacheScope %q, ttlMs %d; want %q with a positive ttlMs %v",
					version, uri, got.CacheScope, got.TTLMs, w.scope, w.ttl)
			}
		}
		cs.Close()
		ss.Wait()
	}
}

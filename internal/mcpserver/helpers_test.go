package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The small fixed-anchor demo warehouse every test reads, built once.
var (
	anchor   = duckdbtest.Anchor
	now      = duckdbtest.Now
	shutdown []func()
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	for _, f := range shutdown {
		f()
	}
	duckdbtest.Cleanup()
	os.Exit(code)
}

func warehouse(t testing.TB) source.Source { return duckdbtest.Open(t) }

// testConfig is the configuration of most tests: the warehouse, the fixed clock.
func testConfig(t testing.TB) Config {
	return Config{Source: warehouse(t), Now: now}
}

// connect starts a server for cfg and a client named client, in process.
func connect(t testing.TB, cfg Config, client string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv, stop := Open(cfg)
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// client is "name" or "name/version" (version "test" when absent).
	name, version, ok := strings.Cut(client, "/")
	if !ok {
		version = "test"
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		// Cancel a listing in flight without waiting for it: some tests'
		// sources ignore cancellation (deadline_test.go).
		done, cancel := context.WithCancel(context.Background())
		cancel()
		stop(done)
	})
	return cs
}

// call calls a tool with arguments given as a JSON string (sent as they are).
func call(t testing.TB, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	var raw any
	if args != "" {
		raw = json.RawMessage(args)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

// texts returns the text of every content block, failing on other kinds.
func texts(t testing.TB, res *mcp.CallToolResult) []string {
	t.Helper()
	out := make([]string, len(res.Content))
	for i, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("block %d is %T, not text", i, c)
		}
		out[i] = tc.Text
	}
	return out
}

// object decodes a JSON block.
func object(t testing.TB, block string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(block), &m); err != nil {
		t.Fatalf("block is not a JSON object: %v\n%s", err, block)
	}
	return m
}

// metaOf is the _meta object of a JSON block.
func metaOf(t testing.TB, block string) map[string]any {
	t.Helper()
	m, ok := object(t, block)["_meta"].(map[string]any)
	if !ok {
		t.Fatalf("no _meta in %s", block)
	}
	return m
}

// errorOf checks res is an isError answer of this type and returns its body.
func errorOf(t testing.TB, res *mcp.CallToolResult, typ string) map[string]any {
	t.Helper()
	b := texts(t, res)
	if !res.IsError || len(b) != 1 {
		t.Fatalf("want one isError block of type %s, got isError=%v, %d blocks:\n%v", typ, res.IsError, len(b), b)
	}
	body := object(t, b[0])
	if body["type"] != typ {
		t.Fatalf("type = %v, want %s:\n%s", body["type"], typ, b[0])
	}
	if d, _ := body["detail"].(string); d == "" {
		t.Errorf("%s without detail", typ)
	}
	if _, ok := body["_meta"].(map[string]any); !ok {
		t.Errorf("%s without _meta", typ)
	}
	return body
}

func hasOptimization(meta map[string]any, typ string) map[string]any {
	return entryOf(meta, "optimizations_applied", typ)
}

// entryOf is the first entry of _meta's list key (warnings,
// optimizations_applied) of this type, or nil.
func entryOf(meta map[string]any, key, typ string) map[string]any {
	list, _ := meta[key].([]any)
	for _, o := range list {
		if m, ok := o.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

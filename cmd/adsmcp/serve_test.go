package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// The account list's reuse: accounts_refresh when set, else an hour for the
// ad platforms' APIs (a Google listing costs 1 + 2 requests per customer) and
// a minute for a warehouse.
func TestAccountsRefresh(t *testing.T) {
	api, warehouse := live.New(nil), duckdbtest.Open(t)
	if got := accountsRefresh(nil, api); got != time.Hour {
		t.Errorf("live: %v", got)
	}
	if got := accountsRefresh(&config.File{}, warehouse); got != time.Minute {
		t.Errorf("warehouse: %v", got)
	}
	if got := accountsRefresh(&config.File{AccountsRefresh: config.Duration(3 * time.Hour)}, api); got != 3*time.Hour {
		t.Errorf("configured: %v", got)
	}
}

func TestParseBudgetFlags(t *testing.T) {
	got, err := parseBudgetFlags([]string{"claude-code=80000", "*=40_000", "my=client=5000"})
	if err != nil || got["claude-code"] != 80000 || got["*"] != 40000 || got["my=client"] != 5000 {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"claude-code", "=5000", "x=abc", "x=10", "x=-5"} {
		if _, err := parseBudgetFlags([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, args := range [][]string{
		{"serve", "--budget-for", "claude-code"},
		{"serve", "--deadline", "0s"},
		{"serve", "--today", "yesterday"},
		{"serve", "--max-accounts", "0"},
	} {
		// --db to a fresh file: should a check fail, nothing touches the user's data.
		args = append(args, "--db", filepath.Join(t.TempDir(), "unused.duckdb"))
		if _, _, err := runCLI(args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestServeStdioSmoke builds the binary and speaks raw JSON-RPC to `adsmcp
// serve` over its stdin and stdout, as Claude Code does: stdout carries only
// JSON-RPC lines, a malformed line gets a parse error and the server goes on.
func TestServeStdioSmoke(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "builds the binary")
	}
	db, bin := testDB(t), binary(t)
	// --verbose: the logs (every call at debug level) must all go to stderr.
	cmd := exec.Command(bin, "serve", "--verbose", "--db", db, "--deadline", "20s", "--budget-for", "claude-code=40000")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() response {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout closed; stderr:\n%s", stderr.String())
			}
			var r response
			if err := json.Unmarshal([]byte(l), &r); err != nil || r.JSONRPC != "2.0" {
				t.Fatalf("stdout line is not JSON-RPC: %q", l)
			}
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer in 30 s; stderr:\n%s", stderr.String())
		}
		return response{}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.0.0"}}}`)
	r := next()
	var init struct {
		ServerInfo   struct{ Name string } `json:"serverInfo"`
		Instructions string                `json:"instructions"`
	}
	if err := json.Unmarshal(r.Result, &init); err != nil || r.ID != 1.0 || init.ServerInfo.Name != "adsmcp" || !strings.Contains(init.Instructions, "time_granularity") {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r = next()
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(r.Result, &list); err != nil || r.ID != 2.0 || len(list.Tools) != 3 {
		t.Fatalf("tools/list: %+v", r)
	}

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"metrics":["spend"]`)
	if r = next(); r.Error == nil || r.Error.Code != -32700 || r.ID != nil {
		t.Errorf("malformed line: %+v, want a parse error (-32700) with id null", r)
	}

	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"query","arguments":{"platforms":["tiktok"],"metrics":["spend","clicks"],"dimensions":["account_name"],"date_range":{"start":"2026-03-01","end":"2026-03-07"}}}}`)
	r = next()
	var call struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(r.Result, &call); err != nil || r.ID != 4.0 || call.IsError || len(call.Content) != 2 {
		t.Fatalf("query: %+v", r)
	}
	var meta struct {
		Meta struct {
			TokenBudget  int    `json:"token_budget"`
			BudgetSource string `json:"budget_source"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(call.Content[0].Text), &meta); err != nil || meta.Meta.TokenBudget != 40000 || meta.Meta.BudgetSource != "config:claude-code" {
		t.Errorf("query _meta: %s", call.Content[0].Text)
	}
	if !strings.HasPrefix(call.Content[1].Text, "account_name,spend,clicks\n") {
		t.Errorf("query CSV: %s", call.Content[1].Text)
	}

	// Closing stdin ends the server cleanly, with nothing more on stdout.
	stdin.Close()
	for l := range lines {
		t.Errorf("unexpected stdout line: %s", l)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v; stderr:\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "tool call") {
			t.Errorf("--verbose logged no tool call on stderr:\n%s", stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit after stdin closed")
	}
}

// TestServeAnswersAPipedScript: `printf '…' | adsmcp serve` — the whole
// session on stdin, which ends after the last request — gets one response per
// request, the query's included, and the server then exits 0.
func TestServeAnswersAPipedScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	db, bin := testDB(t), binary(t)
	script := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.0.0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"platforms":["tiktok"],"metrics":["spend"],"dimensions":["account_name"],"date_range":{"start":"2026-03-01","end":"2026-03-07"}}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(bin, "serve", "--db", db)
	cmd.Stdin = strings.NewReader(script)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not exit after its input ended; stderr:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("serve: %v; stderr:\n%s", err, stderr.String())
	}
	ids := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(l), &r) != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		ids[string(r.ID)] = l
	}
	for _, id := range []string{"1", "2", "3"} {
		if ids[id] == "" {
			t.Errorf("no response to request %s; stdout:\n%.500s", id, out)
		}
	}
	if !strings.Contains(ids["3"], `account_name,spend\n`) {
		t.Errorf("query response: %.400s", ids["3"])
	}
	if strings.Contains(stderr.String(), "waiting for an MCP client") {
		t.Errorf("the terminal notice was printed with stdin a pipe:\n%s", stderr.String())
	}
}

// TestServeOnATerminalSaysWhatItWaitsFor: `adsmcp serve` typed at a terminal
// says on stderr that it waits for an MCP client and how to quit (script(1)
// gives it a terminal).
func TestServeOnATerminalSaysWhatItWaitsFor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) for a terminal")
	}
	db, bin := testDB(t), binary(t)
	cmd := exec.Command(scriptBin, "-q", "-e", "-c", bin+" serve --db "+db, "/dev/null")
	stdin, _ := cmd.StdinPipe() // kept open: the terminal stays up until the kill
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "waiting for an MCP client") {
				found <- sc.Text()
				return
			}
		}
		close(found)
	}()
	select {
	case l, ok := <-found:
		if !ok || !strings.Contains(l, "Ctrl-C") || !strings.Contains(l, "claude mcp add") {
			t.Errorf("terminal notice: %q (found %v)", l, ok)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notice on a terminal within 30 s")
	}
}

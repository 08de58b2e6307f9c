package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioAnswersBadLinesAndGoesOn speaks raw JSON-RPC lines to the stdio
// transport: lines that are not JSON-RPC messages get JSON-RPC errors, and the
// next request is served.
func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	srv := New(testConfig(t))
	go func() {
		done <- srv.Run(context.Background(), newStdioTransport(inR, outW, 1000))
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	next := func() response {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		var r response
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil || r.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q (%v)", lines.Text(), err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`)
	if r := next(); r.ID != 1.0 || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, -32700, nil},
		{`not json at all`, -32700, nil},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600, nil},
		{`{"id":4,"method":"tools/list"}`, -32600, 4.0},
		{`42`, -32600, nil},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query","arguments":{"metrics":["` + strings.Repeat("x", 2000) + `"]}}}`, -32600, nil},
	} {
		send(c.line)
		r := next()
		if r.Error == nil || r.Error.Code != c.code || r.ID != c.id {
			t.Errorf("%.60s: answered %+v, want error %d with id %v", c.line, r, c.code, c.id)
		}
	}
	send("")
	send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	r := next()
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(r.Result, &list); err != nil || r.ID != 6.0 || len(list.Tools) != 3 {
		t.Fatalf("tools/list after bad lines: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"no/such/method"}`)
	if r := next(); r.Error == nil || r.Error.Code != -32601 || r.ID != 7.0 {
		t.Errorf("unknown method: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_fields"}}`)
	if r := next(); r.Error != nil || r.ID != 8.0 || !strings.Contains(string(r.Result), "filter_operators") {
		t.Errorf("list_fields: %+v", r)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after stdin closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop when stdin closed")
	}
}

// stdioScript is a whole session written before the server reads a line, as
// `printf '...' | adsmcp serve` does: its input ends right after the last
// request.
func stdioScript(lines ...string) io.Reader {
	return strings.NewReader(strings.Join(lines, "\n") + "\n")
}

const (
	stdioInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`
	stdioInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// runScript serves script to its end and returns the responses by id, failing
// when the server does not stop within limit.
func runScript(t *testing.T, cfg Config, script io.Reader, limit time.Duration) map[string]json.RawMessage {
	t.Helper()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- New(cfg).Run(context.Background(), newStdioTransport(script, outW, MaxMessageBytes))
		outW.Close()
	}()
	got := map[string]json.RawMessage{}
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", lines.Text())
		}
		if r.ID == nil {
			continue // a notification
		}
		if _, dup := got[string(r.ID)]; dup {
			t.Errorf("two responses for id %s", r.ID)
		}
		got[string(r.ID)] = append(json.RawMessage(nil), lines.Bytes()...)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run at the end of input: %v", err)
		}
	case <-time.After(limit):
		t.Fatalf("the server did not stop within %v of the end of its input", limit)
	}
	return got
}

// TestStdioAnswersEveryRequestBeforeEOF: a script piped in whole is answered
// request by request — a query included — and only then does the server stop.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	got := runScript(t, testConfig(t), stdioScript(
		stdioInit, stdioInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{`+six+`,"metrics":["spend","clicks"],"dimensions":["platform"],"date_preset":"last_30d"}}}`,
		`{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"list_accounts"}}`,
	), 30*time.Second)
	for _, id := range []string{"1", "2", "3", `"four"`} {
		if got[id] == nil {
			t.Errorf("no response to request %s; got %d responses", id, len(got))
		}
	}
	if q := string(got["3"]); !strings.Contains(q, "platform,spend,clicks") || strings.Contains(q, `"isError":true`) {
		t.Errorf("query response: %.300s", q)
	}
}

// TestStdioInFlightAtEOFKeepsItsDeadline: a call still running when the input
// ends is answered at its deadline (a timeout, its source's work cancelled),
// then the server stops; the end of input neither cuts it short nor waits past it.
func TestStdioInFlightAtEOFKeepsItsDeadline(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source, cfg.Deadline = src, 300*time.Millisecond
	start := time.Now()
	got := runScript(t, cfg, stdioScript(stdioInit, stdioInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":`+slow+`}}`,
	), cfg.Deadline+Grace)
	if took := time.Since(start); took < cfg.Deadline {
		t.Errorf("stopped after %v, before the call's deadline %v", took, cfg.Deadline)
	}
	if r := string(got["2"]); !strings.Contains(r, "timeout") {
		t.Errorf("in-flight call: answered %.300q, want a timeout", r)
	}
	// The answer returns at the deadline; the source sees its context end
	// right then, on its own goroutine: wait for that signal, bounded.
	select {
	case <-src.cancelled:
	case <-time.After(Grace):
		t.Error("the source's context was not cancelled at the deadline")
	}
}

// TestStdioStopsAtEOFWhenIdle: with nothing in flight the end of input stops
// the server at once.
func TestStdioStopsAtEOFWhenIdle(t *testing.T) {
	got := runScript(t, testConfig(t), stdioScript(stdioInit, stdioInitialized), 2*time.Second)
	if got["1"] == nil {
		t.Error("initialize was not answered")
	}
}

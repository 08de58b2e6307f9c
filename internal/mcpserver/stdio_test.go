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

// TestStdinClosedCancelsTheWork: a client that goes away (its end of stdin
// closes) mid-call cancels the source's work, and the server stops.
func TestStdinClosedCancelsTheWork(t *testing.T) {
	src := newBlockingSource(t, false, false)
	cfg := testConfig(t)
	cfg.Source = src
	inR, inW := io.Pipe()
	srv := New(cfg)
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), newStdioTransport(inR, io.Discard, MaxMessageBytes)) }()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":` + slow + `}}`,
	} {
		io.WriteString(inW, l+"\n")
	}
	time.Sleep(300 * time.Millisecond)
	inW.Close()
	select {
	case <-src.cancelled:
	case <-time.After(2 * time.Second):
		t.Error("the source's context was not cancelled after the client went away")
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Error("the server did not stop after stdin closed")
	}
}

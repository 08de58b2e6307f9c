package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
)

// brokenAccounts is a source whose account listing fails.
type brokenAccounts struct{ source.Source }

func (brokenAccounts) Accounts(context.Context) ([]ads.Account, error) {
	return nil, errors.New("warehouse unreachable")
}

// rpcError is the JSON-RPC error of a POST's answer (JSON or one SSE event).
func rpcError(t *testing.T, body string) (code int, message string, data json.RawMessage) {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body = body[i+len("data: "):]
	}
	var msg struct {
		Error *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(strings.NewReader(body)).Decode(&msg); err != nil || msg.Error == nil {
		t.Fatalf("want a JSON-RPC error, got %q (%v)", body, err)
	}
	return msg.Error.Code, msg.Error.Message, msg.Error.Data
}

// initializedSession initializes a session over plain POSTs and returns its headers.
func initializedSession(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, body := post(t, url, nil, initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q", resp.StatusCode, body)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
	post(t, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

// TestProtocolErrorCodes: every JSON-RPC error has the spec's code, never 0
// (JSON-RPC 2.0 §5.1). Resource not found is -32602 with the URI in data
// (SEP-2164, MCP 2026-07-28; the go-sdk's default); a resource or prompt whose
// source fails is -32603; initialize with params of the wrong type is -32602;
// a request before initialize is -32600.
func TestProtocolErrorCodes(t *testing.T) {
	good := startHTTP(t, testConfig(t), HTTPOptions{})
	cfg := testConfig(t)
	cfg.Source = brokenAccounts{cfg.Source}
	broken := startHTTP(t, cfg, HTTPOptions{})
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","arguments":{}}}`
	for _, c := range []struct {
		name, url string
		session   bool
		body      string
		code      int
		say       string
	}{
		{"unknown resource", good, true, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"adsmcp://nope"}}`, -32602, "Resource not found"},
		{"unknown prompt", good, true, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"nope"}}`, -32602, "nope"},
		{"bad prompt argument", good, true, `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"spend_summary","arguments":{"period":"zzz"}}}`, -32602, "period"},
		{"resource, source fails", broken, true, `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"adsmcp://accounts"}}`, -32603, "warehouse unreachable"},
		{"prompt, source fails", broken, true, `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"spend_summary"}}`, -32603, "warehouse unreachable"},
		{"numeric protocolVersion", good, false, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, -32602, "protocolVersion"},
		{"initialize without params", good, false, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, -32602, "params"},
		{"tools/call before initialize", good, false, call, -32600, "initialize"},
		{"tools/call before initialize, with a version header", good, false, call, -32600, "initialize"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h map[string]string
			if c.session {
				h = initializedSession(t, c.url)
			} else if strings.Contains(c.name, "version header") {
				h = map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
			}
			resp, body := post(t, c.url, h, c.body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("HTTP %d %q", resp.StatusCode, body)
			}
			code, msg, data := rpcError(t, body)
			if code != c.code || !strings.Contains(msg, c.say) {
				t.Errorf("error %d %q, want %d saying %q", code, msg, c.code, c.say)

			}
			if c.name == "unknown resource" && !strings.Contains(string(data), `"adsmcp://nope"`) {
				t.Errorf("data %s does not name the URI", data)
			}
		})
	}
	// The server goes on: a proper session still works.
	h := initializedSession(t, good)
	if _, body := post(t, good, h, call); !strings.Contains(body, `"result"`) {
		t.Errorf("after the refusals: %q", body)
	}
}

// TestStdioProtocolErrorCodes: over stdio too, a request before initialize is
// -32600 and a numeric protocolVersion -32602; after a good initialize the
// same call is answered.
func TestStdioProtocolErrorCodes(t *testing.T) {
	const listAccounts = `"method":"tools/call","params":{"name":"list_accounts","arguments":{}}}`
	got := runScript(t, testConfig(t), stdioScript(
		`{"jsonrpc":"2.0","id":"early",`+listAccounts,
		`{"jsonrpc":"2.0","id":"numeric","method":"initialize","params":{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"still early",`+listAccounts,
		stdioInit, stdioInitialized,
		`{"jsonrpc":"2.0","id":"late",`+listAccounts,
	), 30*time.Second)
	for id, want := range map[string]int{`"early"`: -32600, `"numeric"`: -32602, `"still early"`: -32600} {
		code, msg, _ := rpcError(t, string(got[id]))
		if code != want {
			t.Errorf("%s: error %d %q, want %d", id, code, msg, want)
		}
	}
	if !strings.Contains(string(got[`"late"`]), `"result"`) {
		t.Errorf("after initialize: %s", got[`"late"`])
	}
}

package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHTTPBody: any body POSTed to /mcp of a live session — broken JSON,
// batches, wrong envelopes, odd tool arguments — gets an HTTP answer without a
// panic, never a 5xx, and the session still answers a ping afterwards.
func FuzzHTTPBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":{"metrics":["spend"],"date_preset":"last_7d","account_ids":["act_1015823746512093"]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"metrics":5,"filters":[{"field":null}]}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_accounts","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		`{"jsonrpc":"1.0","id":5}`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{`, ``, `null`, "\x00\xff",
	} {
		f.Add(seed)
	}
	h, err := NewHTTPServer(testConfig(f), HTTPOptions{})
	if err != nil {
		f.Fatal(err)
	}
	handler := h.Handler()
	send := func(body, sid string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, MCPPath, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		return w
	}
	init := send(initialize, "")
	sid := init.Header().Get("Mcp-Session-Id")
	if sid == "" {
		f.Fatalf("no session: %d %s", init.Code, init.Body)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	f.Fuzz(func(t *testing.T, body string) {
		if w := send(body, sid); w.Code >= 500 {
			t.Fatalf("%q: %d %s", body, w.Code, w.Body)
		}
		if w := send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`, sid); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result":{}`) {
			t.Fatalf("after %q the session does not answer: %d %s", body, w.Code, w.Body)
		}
	})
}

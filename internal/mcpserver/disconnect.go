package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// cancelOnDisconnect cancels a tool call whose HTTP connection drops before the
// answer is sent. In a stateful session the SDK runs the call on the session,
// not on the POST that carried it, so a client that simply goes away (a closed
// laptop, a killed process: no notifications/cancelled) would leave the source
// working until the deadline. When the POST's context ends first, the
// cancellation the client did not send is sent for it, through the SDK's own
// handler.
//
// Upstream: the SDK does this deliberately for sessions — the MCP spec says a
// disconnection SHOULD NOT be taken for a cancellation, as a client may resume
// the stream (basic/transports, Streamable HTTP). go-sdk#1093
// (https://github.com/modelcontextprotocol/go-sdk/issues/1093, closed) asked
// for it in stateless mode; v1.8.0's StreamableHTTPOptions
// .PropagateRequestCancellation does it for 2026-07-28 sessionless requests
// only. No release does it for sessions, so this stays: adsmcp's answers are
// not resumable (no event store), so a dropped POST's answer is lost anyway.
func (h *HTTPServer) cancelOnDisconnect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || sid == "" {
			next.ServeHTTP(w, r)
			return
		}
		id := h.toolCallID(r)
		if id == nil {
			next.ServeHTTP(w, r)
			return
		}
		// The request's context ends before this handler returns only when the
		// client went away: net/http cancels it after a normal return. The SDK
		// returns from the POST when that happens, but watch it from a goroutine
		// too, in case a call keeps the POST open.
		var once sync.Once
		cancel := func() { once.Do(func() { h.cancelCall(r, sid, id) }) }
		finished := make(chan struct{})
		go func() {
			select {
			case <-finished:
			case <-r.Context().Done():
				select {
				case <-finished:
				default:
					cancel()
				}
			}
		}()
		next.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			cancel()
		}
		close(finished)
	})
}

// toolCallID returns the JSON-RPC id of a tools/call request, and puts the
// body back for the SDK. Bodies over the size limit are left to the SDK, which
// refuses them.
func (h *HTTPServer) toolCallID(r *http.Request) json.RawMessage {
	head, ok := h.peekBody(r)
	if !ok {
		return nil
	}
	msg, ok := readRPC(head)
	if !ok || msg.Method != "tools/call" || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil
	}
	return msg.ID
}

// cancelCall sends notifications/cancelled for the call id of session sid, as
// the client would have. The request carries the original's context values
// (not its cancellation, which has happened): with auth on, the SDK refuses a
// request to a session whose TokenInfo is not the session's owner's.
func (h *HTTPServer) cancelCall(orig *http.Request, sid string, id json.RawMessage) {
	body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":"the client's connection closed"}}`
	req, err := http.NewRequestWithContext(context.WithoutCancel(orig.Context()), http.MethodPost, orig.URL.String(), strings.NewReader(body))
	if err != nil {
		return
	}
	req.Host = orig.Host
	req.RemoteAddr = orig.RemoteAddr
	for _, k := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization"} {
		if v := orig.Header.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.log.Info("client disconnected mid-call; cancelling it", "session", sid, "id", string(id))
	h.stream.ServeHTTP(discardWriter{header: http.Header{}}, req)
}

// discardWriter is a ResponseWriter nobody reads.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}

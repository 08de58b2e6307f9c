package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// peekBody reads r's body up to the size limit and puts it back for the SDK.
// ok is false when the body could not be read or is over the limit: such a
// request is left to the SDK, which refuses it.
func (h *HTTPServer) peekBody(r *http.Request) (body []byte, ok bool) {
	head, err := io.ReadAll(io.LimitReader(r.Body, h.maxBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || int64(len(head)) > h.maxBytes {
		return nil, false
	}
	return head, true
}

// rpcMessage is what the HTTP layer reads of a JSON-RPC message before the SDK.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// readRPC decodes body as one JSON-RPC message; ok is false for anything else
// (a batch, bad JSON).
func readRPC(body []byte) (msg rpcMessage, ok bool) {
	return msg, json.Unmarshal(body, &msg) == nil
}

// opensSession reports whether a POST without a session id may open one: an
// initialize, or what cannot be read here (a batch, bad JSON, a body over the
// limit), which is counted to be safe. server/discover and the other requests
// a client sends before initialize open none, so they never take a place
// under the session caps.
func (h *HTTPServer) opensSession(r *http.Request) bool {
	body, ok := h.peekBody(r)
	if !ok {
		return true
	}
	msg, ok := readRPC(body)
	return !ok || msg.Method == "initialize"
}

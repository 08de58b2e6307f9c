package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// peekedKey holds, in a request's context, its body as peekBody read it, so
// that the handlers after track (session admission, protocol checks,
// cancellation) read it from the connection once between them.
//
// The body is read before the SDK because the SDK offers no hook between
// reading a request and acting on it: the protocol checks work around
// go-sdk#976 (protocol.go), cancellation the SDK's sessions (disconnect.go),
// and session admission enforces caps the SDK does not have. The peek can go
// only when all three can.
type peekedKey struct{}

type peeked struct {
	body []byte
	ok   bool
}

// withPeek is r carrying its peeked body for the handlers after it.
func (h *HTTPServer) withPeek(r *http.Request) *http.Request {
	body, ok := h.peekBody(r)
	return r.WithContext(context.WithValue(r.Context(), peekedKey{}, &peeked{body, ok}))
}

// peekBody reads r's body up to the size limit and puts it back for the SDK
// (or returns what withPeek read). ok is false when the body could not be
// read or is over the limit: such a request is left to the SDK, which
// refuses it.
func (h *HTTPServer) peekBody(r *http.Request) (body []byte, ok bool) {
	if p, found := r.Context().Value(peekedKey{}).(*peeked); found {
		return p.body, p.ok
	}
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

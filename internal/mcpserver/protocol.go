package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes. JSON-RPC 2.0 §5.1 defines them; an error whose code
// is 0 tells a client nothing it can act on, yet the go-sdk (v1.8.0) sends
// code 0 for any error that is not a *jsonrpc.Error
// (internal/jsonrpc2/messages.go, toWireError). Three such paths reach a
// client of adsmcp, and each is given the spec's code here:
//
//   - a resource or prompt handler that fails (the source cannot list the
//     accounts): -32603 internal error, by rpcErrors below;
//   - initialize whose params do not decode (a numeric protocolVersion): the
//     SDK's initialize decoder does not wrap jsonrpc2.ErrInvalidParams as the
//     other methods' decoders do (mcp/server.go, initializeMethodInfo), so it
//     is -32602 invalid params from earlyError;
//   - a request other than initialize or ping before initialize: the SDK's
//     gate returns a plain fmt.Errorf (mcp/server.go:1991, "method %q is
//     invalid during session initialization"), so it is -32600 invalid
//     request from earlyError.
//
// The last two happen before the SDK's receiving middleware runs, so no
// mcp.Middleware can see them: checkProtocol (HTTP) and lineGuard.admit
// (stdio) answer them before the SDK. An unknown resource stays the SDK's
// -32602 with the URI in data (SEP-2164, which MCP 2026-07-28 adopts in place
// of the former -32002).
//
// Upstream: code 0 is reported in go-sdk#976
// (https://github.com/modelcontextprotocol/go-sdk/issues/976), closed by PR
// #1000, which fixed empty method names; no release fixes the paths above
// (v1.8.0, the newest, still sends code 0 for them), so rpcErrors,
// checkProtocol and earlyError stay until one does.

// rpcErrors gives every error a handler returns a JSON-RPC code: errors that
// already carry one keep it; the others (a source failing under a resource
// or a prompt) become -32603 with their message.
func rpcErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var coded *jsonrpc.Error
		if err != nil && !errors.As(err, &coded) {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return res, err
	}
}

// beforeInitialize are the requests a client may send before initialize
// (those the SDK lets through its gate).
var beforeInitialize = []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover"}

// newProtocolKey in a request's _meta makes it a sessionless request of
// protocol 2026-07-28, which needs no initialize.
const newProtocolKey = "io.modelcontextprotocol/protocolVersion"

// checkProtocol answers, with the spec's JSON-RPC code, the two kinds of
// request the SDK would refuse with code 0 (earlyError): an initialize whose
// params do not decode (-32602), and — stateful mode, no Mcp-Session-Id — any
// other request before initialize (-32600). Everything else, including bodies
// over the size limit, batches and malformed JSON, goes to the SDK as it came.
// Over stdio, lineGuard does the same.
func (h *HTTPServer) checkProtocol(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		head, ok := h.peekBody(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if e, id := h.protocolError(r, head); e != nil {
			writeRPCError(w, id, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// protocolError is the error the request in body deserves before the SDK sees
// it, with the request's id; nil to let it through.
func (h *HTTPServer) protocolError(r *http.Request, body []byte) (*jsonrpc.Error, json.RawMessage) {
	msg, ok := readRPC(body)
	if !ok || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil, nil // not a single call: notifications, responses, batches, bad JSON
	}
	// Stateless: the SDK needs no initialize. A session id: the SDK keeps a
	// session only once initialize succeeded on it.
	initialized := h.stateless || r.Header.Get("Mcp-Session-Id") != ""
	return earlyError(msg.Method, msg.Params, initialized), msg.ID
}

// earlyError is the error a call of method with params deserves before the
// SDK sees it (over HTTP or stdio), or nil: an initialize whose params do not
// decode, or, before initialize, a method that needs it.
func earlyError(method string, params json.RawMessage, initialized bool) *jsonrpc.Error {
	if method == "initialize" {
		return initializeParamsError(params)
	}
	if initialized || slices.Contains(beforeInitialize, method) || sessionless(params) {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
		"%s before initialize: send initialize first (over HTTP, then this request with the Mcp-Session-Id header its answer gives)", method)}
}

// initializeParamsError says what is wrong with initialize's params, naming
// the field, or nil.
func initializeParamsError(raw json.RawMessage) *jsonrpc.Error {
	const example = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"my-client","version":"1.0"}}`
	if len(raw) == 0 || string(raw) == "null" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "initialize needs params, e.g. " + example}
	}
	var p mcp.InitializeParams
	err := json.Unmarshal(raw, &p)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"initialize: params.%s must be a %s, not a %s, e.g. %s", te.Field, te.Type, te.Value, example)}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("initialize: params are not an object like %s: %v", example, err)}
}

// sessionless reports whether params carry the _meta protocol version of a
// sessionless (2026-07-28) request, which the SDK serves without initialize.
func sessionless(params json.RawMessage) bool {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[newProtocolKey].(string)
	return ok
}

// writeRPCError answers a request with a JSON-RPC error (HTTP 200, as the SDK
// answers its own).
func writeRPCError(w http.ResponseWriter, id json.RawMessage, e *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
}

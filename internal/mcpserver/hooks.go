package mcpserver

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// CallRecord is one finished tool call, for metrics.
type CallRecord struct {
	Tool   string
	Client string
	// Principal and Tenant are empty over stdio.
	Principal string
	Tenant    string
	// Outcome is "ok", "data_too_large", "cancelled", or the error type of an
	// isError answer (invalid_query, too_many_accounts, timeout, source_error,
	// permission_denied, rate_limited, internal_error).
	Outcome string
	Elapsed time.Duration
	// Tokens is the answer's token_estimate (0 when it has none).
	Tokens int
	// Optimizations are the types in _meta.optimizations_applied.
	Optimizations []string
	// SourceCalls is _meta.source_calls.
	SourceCalls int
}

// Observer is told about every finished tool call (Prometheus metrics).
type Observer interface {
	ToolCall(CallRecord)
}

// Limiter admits a principal's tool calls: a request rate and a cap on calls
// at once. When it refuses, retryAfter says when to try again.
type Limiter interface {
	Acquire(p *auth.Principal) (release func(), retryAfter time.Duration, ok bool)
}

// record describes a finished call from its answer's first block: the error
// type of an isError answer, and _meta (one JSON decode).
func record(tool, client string, p *auth.Principal, started time.Time, res *mcp.CallToolResult, err error) CallRecord {
	r := CallRecord{Tool: tool, Client: client, Outcome: "ok", Elapsed: time.Since(started)}
	if p != nil {
		r.Principal, r.Tenant = p.ID, p.Tenant
	}
	if err != nil || res == nil {
		r.Outcome = "cancelled"
		return r
	}
	if res.IsError {
		r.Outcome = "error"
	}
	if len(res.Content) == 0 {
		return r
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return r
	}
	var head struct {
		Type string `json:"type"`
		Meta struct {
			Format        string `json:"format"`
			TokenEstimate int    `json:"token_estimate"`
			SourceCalls   int    `json:"source_calls"`
			Optimizations []struct {
				Type string `json:"type"`
			} `json:"optimizations_applied"`
		} `json:"_meta"`
	}
	if json.Unmarshal([]byte(t.Text), &head) != nil {
		return r
	}
	if res.IsError && head.Type != "" {
		r.Outcome = head.Type
	}
	m := head.Meta
	if m.Format == "summary" && !res.IsError {
		r.Outcome = "data_too_large"
	}
	r.Tokens, r.SourceCalls = m.TokenEstimate, m.SourceCalls
	for _, o := range m.Optimizations {
		r.Optimizations = append(r.Optimizations, o.Type)
	}
	return r
}

// RequestIDHeader carries each HTTP request's id: the client's own, or one
// the server assigns (see HTTPServer), so a call's log lines can be matched
// with the proxy's and the client's.
const RequestIDHeader = "X-Request-Id"

// requestID is the HTTP request id of a call (empty over stdio).
func requestID(req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return req.Extra.Header.Get(RequestIDHeader)
}

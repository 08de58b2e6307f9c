package mcpserver

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// CallRecord is one finished tool call, for metrics.
type CallRecord struct {
	Tool   string
	Client string
	// Principal and Tenant are empty over stdio.
	Principal string
	Tenant    string
	// Outcome is outcome.OK, DataTooLarge, Cancelled, or the error type of
	// an isError answer (invalid_query, too_many_accounts, timeout,
	// source_error, permission_denied, rate_limited, internal_error, …).
	Outcome outcome.Code
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

// record describes a finished call from its reply's report (nil: the call
// was cancelled), never from the reply's text.
func record(c callInfo, rep *reply, err error) CallRecord {
	r := CallRecord{Tool: c.tool, Client: c.caller.Name, Outcome: outcome.Cancelled, Elapsed: time.Since(c.started)}
	if c.principal != nil {
		r.Principal, r.Tenant = c.principal.ID, c.principal.Tenant
	}
	if err != nil || rep == nil {
		return r
	}
	r.Outcome, r.Tokens, r.SourceCalls, r.Optimizations = rep.report.Outcome, rep.report.Tokens, rep.report.SourceCalls, rep.report.Optimizations
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

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// runFunc answers one call. It returns an error only when ctx ended or on a
// failure that is not the model's to fix.
type runFunc func(ctx context.Context, req *mcp.CallToolRequest, started time.Time) (*reply, error)

// timeoutFunc builds the answer for a call that ran out of time. It must not
// touch the source.
type timeoutFunc func(req *mcp.CallToolRequest, started time.Time) *reply

// finished is what a call's work came to.
type finished struct {
	rep *reply
	err error
}

// guard wraps a tool's work with what every call gets: the deadline (the work
// runs in its own goroutine, so the answer returns at the deadline even when the
// source ignores cancellation), recovery from panics (answered as
// internal_error, never a crash), and a log line.
func (s *server) guard(name string, run runFunc, onTimeout timeoutFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		c := callInfo{tool: name, req: req, caller: clientOf(req), principal: principalOf(req.Extra), started: time.Now()}
		var rep *reply
		defer func() {
			// Last resort: a panic in this function itself.
			if r := recover(); r != nil {
				s.log.Error("tool call panicked", "tool", name, "client", c.caller.Name, "panic", r, "stack", string(debug.Stack()))
				rep, err = s.internalError(c.started), nil
			}
			res = rep.toolResult()
			s.labelDemo(res)
			// One record per call: the log line, the client's log and the
			// metrics all read it.
			rec := record(c, rep, err)
			s.logCall(req, rec)
			s.clientLog(ctx, req, rec)
			if s.cfg.Observer != nil {
				s.cfg.Observer.ToolCall(rec)
			}
		}()
		rep, err = s.call(ctx, c, run, onTimeout)
		return rep.toolResult(), err
	}
}

// callInfo is what guard knows of a call before its work runs.
type callInfo struct {
	tool      string
	req       *mcp.CallToolRequest
	caller    budget.Client
	principal *auth.Principal
	started   time.Time
}

// call runs a call's work under the principal's limits and the deadline.
func (s *server) call(ctx context.Context, c callInfo, run runFunc, onTimeout timeoutFunc) (*reply, error) {
	req, started, client := c.req, c.started, c.caller.Name
	if s.cfg.Limiter != nil && c.principal != nil {
		release, retry, ok := s.cfg.Limiter.Acquire(c.principal)
		if !ok {
			return rateLimited(retry, started), nil
		}
		defer release()
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Deadline)
	defer cancel()
	prog := s.startProgress(cctx, req, started)
	defer prog.stop()
	cctx = context.WithValue(cctx, progressKey{}, prog)
	cctx = context.WithValue(cctx, clientKey{}, c.caller)
	done := make(chan finished, 1) // buffered: a late answer never blocks its goroutine
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool call panicked", "tool", c.tool, "client", client, "panic", r, "stack", string(debug.Stack()))
				done <- finished{rep: s.internalError(started)}
			}
		}()
		r, err := run(cctx, req, started)
		done <- finished{r, err}
	}()
	var o finished
	timedOut := false
	select {
	case o = <-done:
		timedOut = o.err != nil && cctx.Err() != nil
	case <-cctx.Done():
		// The source was told (cctx is cancelled); do not wait for it, but
		// take an answer that arrived at the same instant.
		select {
		case o = <-done:
			timedOut = o.err != nil || o.rep == nil
		default:
			timedOut = true
		}
	}
	switch {
	case ctx.Err() != nil:
		// The client cancelled the call or went away: nobody reads an answer.
		return nil, ctx.Err()
	case timedOut:
		return onTimeout(req, started), nil
	case o.err != nil:
		s.log.Error("tool call failed", "tool", c.tool, "client", client, "error", o.err)
		return s.internalError(started), nil
	case o.rep == nil:
		return s.internalError(started), nil
	}
	return o.rep, nil
}

func (s *server) logCall(req *mcp.CallToolRequest, rec CallRecord) {
	attrs := []any{"tool", rec.Tool, "client", rec.Client, "elapsed_ms", rec.Elapsed.Milliseconds()}
	if rec.Principal != "" {
		attrs = append(attrs, "principal", rec.Principal, "tenant", rec.Tenant)
	}
	if id := requestID(req); id != "" {
		attrs = append(attrs, "request_id", id)
	}
	s.log.Info("tool call", append(attrs, "outcome", string(rec.Outcome))...)
}

// rateLimited answers a call refused by the limiter: when to retry, and that
// nothing ran.
func rateLimited(retry time.Duration, started time.Time) *reply {
	secs := max(1, int(retry.Seconds()+0.999))
	return errorBlock(outcome.RateLimited,
		fmt.Sprintf("Too many calls for this API key or user right now; nothing was run. Wait %d s, then call again (fewer calls at once).", secs),
		[]kv{{"retry_after_seconds", secs}}, baseMeta(started))
}

type clientKey struct{}

// clientFrom is the calling client, read once per call by guard
// (req.ClientInfo() decodes the request's metadata each time).
func clientFrom(ctx context.Context) budget.Client {
	c, _ := ctx.Value(clientKey{}).(budget.Client)
	return c
}

// clientLog tells a client that set a log level (logging/setLevel) how each
// call went: debug for every call, warning for timeouts and source errors,
// error for failures of adsmcp itself. The model's answer is unaffected; this
// is for the person watching the client's logs.
func (s *server) clientLog(ctx context.Context, req *mcp.CallToolRequest, rec CallRecord) {
	if req == nil || req.Session == nil || rec.Outcome == outcome.Cancelled || ctx.Err() != nil {
		return
	}
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	level := mcp.LoggingLevel("debug")
	switch rec.Outcome {
	case outcome.Timeout, outcome.SourceError:
		level = "warning"
	case outcome.InternalError:
		level = "error"
	}
	data := map[string]any{"tool": rec.Tool, "outcome": string(rec.Outcome), "elapsed_ms": rec.Elapsed.Milliseconds()}
	//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Logger: "adsmcp", Level: level, Data: data}); err != nil {
		s.log.Debug("log notification failed", "error", err)
	}
}

// internalError is the answer to a failure of adsmcp itself.
func (s *server) internalError(started time.Time) *reply {
	return errorBlock(outcome.InternalError,
		"adsmcp failed while answering this call (the failure is logged on the server). Try the call again, or a different query; tell the user if it keeps failing.",
		nil, baseMeta(started))
}

// kv is one member of a JSON object written in a fixed order.
type kv struct {
	Key   string
	Value any
}

// orderedJSON writes the members in order: type and detail first, as in every
// adsmcp error, so the model reads what happened before the specifics.
func orderedJSON(members ...kv) string {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		v, err := fit.MarshalText(m.Value)
		if err != nil {
			v, _ = json.Marshal(fmt.Sprint(m.Value))
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.String()
}

// errorBlock is an isError result the model can act on: one JSON block with
// type, detail, the specifics in order, then _meta.
func errorBlock(typ outcome.Code, detail string, extra []kv, meta callMeta) *reply {
	members := append([]kv{{"type", typ}, {"detail", detail}}, extra...)
	members = append(members, kv{"_meta", meta})
	return &reply{textResult(true, orderedJSON(members...)), outcome.Report{Outcome: typ, SourceCalls: meta.SourceCalls}}
}

// callMeta is the _meta of list tools and of errors built here.
type callMeta struct {
	Count       *int   `json:"count,omitempty"`
	Platform    string `json:"platform,omitempty"`
	Query       any    `json:"query,omitempty"`
	SourceCalls int    `json:"source_calls"`
	ElapsedMS   int64  `json:"elapsed_ms"`
}

func baseMeta(started time.Time) callMeta {
	return callMeta{ElapsedMS: time.Since(started).Milliseconds()}
}

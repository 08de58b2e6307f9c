package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// reply is a tool's answer and what it says about the call: the code that
// builds the answer fills the report, and the call's record (metrics, logs)
// reads it instead of decoding the answer's text.
type reply struct {
	result *mcp.CallToolResult
	report outcome.Report
}

// toolResult is what the client receives (nil for no reply).
func (r *reply) toolResult() *mcp.CallToolResult {
	if r == nil {
		return nil
	}
	return r.result
}

// dataReply is a data answer of a list tool, which made sourceCalls calls to
// the source.
func dataReply(sourceCalls int, blocks ...string) *reply {
	return &reply{textResult(false, blocks...), outcome.Report{Outcome: outcome.OK, SourceCalls: sourceCalls}}
}

// engineReply is an answer of the query engine, as it built it.
func engineReply(res *answer.Result) *reply {
	return &reply{textResult(res.IsError, res.Blocks...), res.Report}
}

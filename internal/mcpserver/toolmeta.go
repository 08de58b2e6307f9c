package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// maxResultSizeChars is what every tool declares as
// _meta["anthropic/maxResultSizeChars"], the most Claude Code accepts. Claude
// Code keeps an annotated tool's text results inline up to that many
// characters, before any MAX_MCP_OUTPUT_TOKENS check (25,000 tokens by
// default); without it, a result over about 50,000 characters is written to a
// file the model only previews, and one over the token limit is refused.
// adsmcp fits the answers that can grow (query, list_accounts) to the client's
// budget itself, so none needs that second cut.
const maxResultSizeChars = 500000

// toolMeta is a tool's _meta, a new map for each tool so that none can change
// another's.
func toolMeta() mcp.Meta {
	return mcp.Meta{"anthropic/maxResultSizeChars": maxResultSizeChars}
}

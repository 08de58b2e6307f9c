package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/source"
)

// DemoMetaKey is the key of the result's _meta that says the answer came
// from the synthetic demo dataset; its value is the dataset's label.
const DemoMetaKey = "adsmcp/demo_data"

// labelDemo marks every answer — data, errors, timeouts — from a source
// holding the demo dataset, in one place: the result's _meta, which leaves the
// fitted text (and so its token count) untouched.
func (s *server) labelDemo(res *mcp.CallToolResult) {
	if res == nil {
		return
	}
	if label := source.DemoLabel(s.cfg.Source); label != "" {
		if res.Meta == nil {
			res.Meta = mcp.Meta{}
		}
		res.Meta[DemoMetaKey] = label
	}
}

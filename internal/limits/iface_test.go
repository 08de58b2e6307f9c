package limits_test

import (
	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
)

// The limiter is what the MCP server expects (an external test: mcpserver
// imports limits).
var _ mcpserver.Limiter = (*limits.Limiter)(nil)

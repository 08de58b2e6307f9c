package mcpserver

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// queryTimeout answers a query that ran out of time through the engine (so it
// fits the caller's budget like every answer): how long it ran, and concrete
// narrower queries. The account list comes from the last time the source
// answered, so nothing here waits on it.
func (s *server) queryTimeout(req *mcp.CallToolRequest, started time.Time) *reply {
	p := principalOf(req.Extra)
	r := engineRequest(req, p, clientOf(req))
	res := s.engineFor(p).Timeout(r, p.Filter(s.accounts.known()), started, s.cfg.Deadline)
	return engineReply(res)
}

package mcpserver

import (
	"context"

	"github.com/adsmcp/adsmcp/internal/source"
)

// Ready is the server's readiness, for /readyz: the source's own check when
// it has one (source.Checker: a warehouse notes a corrupted file), else its
// accounts listed through the cache every tool call uses. So a probe of the
// ad-platform APIs costs no request beyond the list the tenants' calls
// refresh in the background (Config.AccountsTTL), instead of one account
// listing per probe in the connectors' rate limiter, ahead of the tenants'
// queries. While a last good list answers, a failing refresh does not make
// the server unready: the calls' own answers name the accounts that fail.
func (h *HTTPServer) Ready(ctx context.Context) error {
	if c, ok := h.accounts.src.(source.Checker); ok {
		return c.Check(ctx)
	}
	_, err := h.accounts.Accounts(ctx)
	return err
}

package meta

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
)

// breakdownCombinationsFix names the combinations Meta documents (Insights
// API Breakdowns, "Combining breakdowns"), as our dimensions: Meta's
// breakdown sets, which the query layer already holds every query to.
var breakdownCombinationsFix = "Meta reports only some breakdowns together: " + catalog.SetLabels(catalog.MetaAds) +
	". Ask one of these groups per query"

// accountError says why an account could not be read: the kind, Meta's cause
// (without secrets) and what the user can do.
func (c *Connector) accountError(accountID string, err error) *source.AccountError {
	kind, cause, fix, retry := c.explain(err, accountID)
	return &source.AccountError{AccountID: accountID, Platform: catalog.MetaAds, Kind: kind,
		Cause: cause, Fix: fix, RetryAfter: retry, Err: errors.New(c.redact(err.Error()))}
}

// describe is err as one sentence for listing accounts (no account yet).
func (c *Connector) describe(ctx context.Context, err error, accountID string) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	kind, cause, fix, _ := c.explain(err, accountID)
	return &describedError{msg: fmt.Sprintf("%s: %s (%s)", kind, cause, fix)}
}

type describedError struct{ msg string }

func (e *describedError) Error() string { return e.msg }

// explain classifies err: kind, cause, fix, and when access returns.
func (c *Connector) explain(err error, accountID string) (kind outcome.Code, cause, fix string, retry time.Duration) {
	account := "the account"
	if accountID != "" {
		account = accountID
	}
	var ae *APIError
	var te *transportError
	var me *malformedError
	var ase *asyncError
	switch {
	case errors.As(err, &ae):
		said := ae.Error()
		switch {
		case ae.tokenProblem():
			return source.PermissionDenied,
				"Meta rejected the access token, which is invalid, expired or revoked (" + said + ")",
				"re-authorize: create a new token with ads_read (a system user token from Business Manager does not expire) and set it as sources.meta.access_token", 0
		case ae.permission():
			return source.PermissionDenied,
				"the access token may not read " + account + " (" + said + ")",
				"in Business Manager give the token's user or system user access to " + account + " (at least 'View performance') and make sure the token has the ads_read permission", 0
		case ae.throttled():
			fix := "retry in a few minutes"
			if ae.RetryAfter > 0 {
				fix = fmt.Sprintf("retry after %d s", int(math.Ceil(ae.RetryAfter.Seconds())))
			}
			return source.RateLimited, "Meta is throttling requests for " + account + " (" + said + ")", fix, ae.RetryAfter
		case ae.reduceData():
			return source.Rejected, "Meta says the request asks for too much data, even as an asynchronous report (" + said + ")",
				"ask for a shorter date range, a coarser time_granularity or fewer dimensions", 0
		case ae.transient():
			return source.Unavailable, "Meta failed to answer after retries (" + said + ")", "retry later", ae.RetryAfter
		default:
			fix := "this may be an adsmcp bug: report it with the fbtrace_id"
			msg := strings.ToLower(ae.Message)
			switch {
			case strings.Contains(msg, "combination of data breakdown"):
				return source.Rejected, "Meta cannot report these breakdowns together (" + said + ")", breakdownCombinationsFix, 0
			case strings.Contains(msg, "action_attribution_windows"):
				fix = "ask an attribution_window made of " + strings.Join(catalog.AttributionParts, ", ") + " (7d_view and 28d_view were withdrawn by Meta), or none for the account's default"
			case strings.Contains(msg, "breakdown"):
				fix = breakdownCombinationsFix
			}
			return source.Rejected, "Meta rejected the request (" + said + ")", fix, 0
		}
	case errors.As(err, &ase):
		return source.Unavailable, ase.Error(), "retry; if it keeps failing, ask for a shorter date range or fewer dimensions", 0
	case errors.As(err, &te):
		return source.Unavailable, "Meta could not be reached (" + te.msg + ")", "check the network and retry", 0
	case errors.As(err, &me):
		return source.Unavailable, me.Error(), "retry; if it persists, report it as an adsmcp bug", 0
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return source.Unavailable, "Meta did not answer in time", "retry with a narrower query", 0
	}
	return source.Unavailable, c.redact(err.Error()), "retry later", 0
}

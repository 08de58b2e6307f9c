package tiktok

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
	"github.com/adsmcp/adsmcp/internal/source/apiclient"
)

// APIError is an error TikTok answered with: an envelope whose code is not 0,
// or an HTTP error status without one.
type APIError struct {
	// HTTPStatus is the response's status (TikTok answers most errors with
	// HTTP 200 and the code in the body).
	HTTPStatus int
	Code       int
	Message    string
	RequestID  string
	// RetryAfter is the Retry-After header's wait, when TikTok sent one.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "TikTok API error %d", e.Code)
	if e.HTTPStatus != 0 && e.HTTPStatus != 200 {
		fmt.Fprintf(&b, ", HTTP %d", e.HTTPStatus)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" [request_id " + e.RequestID + "]")
	}
	return b.String()
}

// Return codes of the API for Business (docs/tiktok.md "Errors" cites the
// sources; where they disagree the choice is written there).
const (
	codeParam       = 40000 // a parameter error
	codePermission  = 40001 // no permission to the advertiser or the resource
	codeParamValue  = 40002 // an invalid parameter value (dimensions, metrics, dates, filtering)
	codeRateLimit   = 40100 // requests too frequent (QPS/QPM/QPD)
	codeAppInvalid  = 40101 // app_id and secret do not match
	codeTokenExpiry = 40102 // the access token has expired
	codeTokenEmpty  = 40104 // no access token
	codeTokenBad    = 40105 // the access token is incorrect or revoked
	codeServer      = 50000 // system error
	codeServerBusy  = 50002 // service temporarily unavailable
)

// throttled: TikTok's request-rate limits, or HTTP 429.
func (e *APIError) throttled() bool { return e.Code == codeRateLimit || e.HTTPStatus == 429 }

// tokenProblem: the access token is missing, expired, revoked or wrong, or the
// app's credentials do not match.
func (e *APIError) tokenProblem() bool {
	switch e.Code {
	case codeTokenExpiry, codeTokenEmpty, codeTokenBad, codeAppInvalid:
		return true
	}
	return e.HTTPStatus == 401
}

// permission: the token may not read the advertiser (40001, or a parameter
// error whose message is about permission, as TikTok writes some).
func (e *APIError) permission() bool {
	if e.Code == codePermission || e.HTTPStatus == 403 {
		return true
	}
	m := strings.ToLower(e.Message)
	return e.Code == codeParamValue && (strings.Contains(m, "permission") || strings.Contains(m, "not authorized"))
}

// transient: TikTok's system errors (50000, 50002, 51xxx) and HTTP 5xx.
func (e *APIError) transient() bool {
	return e.Code == codeServer || e.Code == codeServerBusy || e.Code >= 51000 && e.Code <= 51999 || e.HTTPStatus >= 500
}

// retryVerdict is what a failed request means for the shared retry loop:
// throttling and system errors may succeed later (after Retry-After when TikTok
// sends one), as may a request that got no response; anything else fails the
// same way again.
func retryVerdict(err error) apiclient.Verdict {
	var ae *APIError
	switch {
	case errors.As(err, &ae):
		if ae.throttled() || ae.transient() {
			return apiclient.Retry(ae.RetryAfter)
		}
	case errors.As(err, new(*transportError)):
		return apiclient.Retry(0)
	}
	return apiclient.Permanent
}

// malformedError is a response the connector cannot use.
type malformedError struct{ msg string }

func (e *malformedError) Error() string { return "unexpected TikTok response: " + e.msg }

// accountError says why an advertiser could not be read: the kind, TikTok's
// cause (without secrets) and what the user can do.
func (c *Connector) accountError(accountID string, err error) *source.AccountError {
	kind, cause, fix, retry := c.explain(err, accountID)
	return &source.AccountError{AccountID: accountID, Platform: catalog.TikTokAds, Kind: kind,
		Cause: cause, Fix: fix, RetryAfter: retry, Err: errors.New(c.redact(err.Error()))}
}

// describe is err as one sentence for listing advertisers (no account yet).
func (c *Connector) describe(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	kind, cause, fix, _ := c.explain(err, "")
	return &describedError{msg: fmt.Sprintf("%s: %s (%s)", kind, cause, fix)}
}

type describedError struct{ msg string }

func (e *describedError) Error() string { return e.msg }

// explain classifies err: kind, cause, fix, and when access returns.
func (c *Connector) explain(err error, accountID string) (kind outcome.Code, cause, fix string, retry time.Duration) {
	account := "the advertiser"
	if accountID != "" {
		account = "advertiser " + accountID
	}
	var ae *APIError
	var te *transportError
	var me *malformedError
	switch {
	case errors.As(err, &ae):
		said := c.redact(ae.Error())
		switch {
		case ae.tokenProblem():
			return source.PermissionDenied,
				"TikTok rejected the access token or the app's credentials: missing, expired, revoked or wrong (" + said + ")",
				"re-authorize the app in TikTok for Business, set the new long-term token as sources.tiktok.access_token, and check sources.tiktok.app_id / app_secret", 0
		case ae.permission():
			return source.PermissionDenied,
				"the access token may not read " + account + " (" + said + ")",
				"have the advertiser (or its Business Center) authorize the app for " + account + " with the Reporting permission, then re-authorize", 0
		case ae.throttled():
			fix := "retry in a minute"
			if ae.RetryAfter > 0 {
				fix = fmt.Sprintf("retry after %d s", int(math.Ceil(ae.RetryAfter.Seconds())))
			}
			return source.RateLimited, "TikTok is limiting the request rate for " + account + " (" + said + ")", fix, ae.RetryAfter
		case ae.transient():
			return source.Unavailable, "TikTok failed to answer after retries (" + said + ")", "retry later", ae.RetryAfter
		default:
			fix := "this may be an adsmcp bug: report it with the request_id"
			if m := strings.ToLower(ae.Message); strings.Contains(m, "dimension") || strings.Contains(m, "combination") {
				fix = "TikTok allows only some combinations of audience dimensions: ask for fewer of country, device and publisher_platform at once"
			}
			return source.Rejected, "TikTok rejected the request (" + said + ")", fix, 0
		}
	case errors.As(err, &te):
		return source.Unavailable, "TikTok could not be reached (" + te.msg + ")", "check the network and retry", 0
	case errors.As(err, &me):
		return source.Unavailable, c.redact(me.Error()), "retry; if it persists, report it as an adsmcp bug", 0
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return source.Unavailable, "TikTok did not answer in time", "retry with a narrower query", 0
	}
	return source.Unavailable, c.redact(err.Error()), "retry later", 0
}

package googleads

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/apiclient"
)

// apiError is an error the Google Ads API returned: an HTTP error status, or an
// error element inside a searchStream response.
type apiError struct {
	HTTPStatus int
	// Status is the google.rpc status: UNAUTHENTICATED, PERMISSION_DENIED,
	// RESOURCE_EXHAUSTED, INVALID_ARGUMENT, INTERNAL, …
	Status  string
	Message string
	// Codes are the GoogleAdsFailure error codes, "authorizationError:USER_PERMISSION_DENIED".
	Codes []string
	// Messages are the GoogleAdsFailure errors' messages.
	Messages []string
	// RetryDelay is the quota error's retryDelay or the Retry-After header.
	RetryDelay time.Duration
	RequestID  string
}

func (e *apiError) Error() string {
	var b strings.Builder
	b.WriteString("Google Ads API")
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " HTTP %d", e.HTTPStatus)
	}
	if e.Status != "" {
		b.WriteString(" " + e.Status)
	}
	if len(e.Codes) > 0 {
		b.WriteString(" " + strings.Join(e.Codes, ", "))
	}
	msg := e.Message
	if len(e.Messages) > 0 {
		msg = strings.Join(e.Messages, "; ")
	}
	if msg != "" {
		b.WriteString(": " + msg)
	}
	if e.RequestID != "" {
		b.WriteString(" (request ID " + e.RequestID + ")")
	}
	return b.String()
}

// has reports whether the failure carries the error code (the part after the
// colon, e.g. USER_PERMISSION_DENIED).
func (e *apiError) has(code string) bool {
	return slices.ContainsFunc(e.Codes, func(c string) bool { return strings.HasSuffix(c, ":"+code) })
}

// errorJSON is google.rpc.Status as the REST API writes it, with the Google
// Ads failure details.
type errorJSON struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type   string `json:"@type"`
		Errors []struct {
			ErrorCode map[string]json.RawMessage `json:"errorCode"`
			Message   string                     `json:"message"`
			Details   *struct {
				QuotaErrorDetails *struct {
					RetryDelay string `json:"retryDelay"`
				} `json:"quotaErrorDetails"`
			} `json:"details"`
		} `json:"errors"`
		RequestID string `json:"requestId"`
	} `json:"details"`
}

// parseError reads an error response body; whatever the body, it returns an
// error that says what came back.
func parseError(status int, header http.Header, body []byte) *apiError {
	e := &apiError{HTTPStatus: status}
	var env struct {
		Error *errorJSON `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error == nil {
		e.Status = statusFromHTTP(status)
		e.Message = "unexpected response body: " + snippet(body)
	} else {
		fillError(e, env.Error)
	}
	if header != nil {
		if ra := header.Get("Retry-After"); ra != "" && e.RetryDelay == 0 {
			if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && s >= 0 && s < 86400*7 {
				e.RetryDelay = time.Duration(s) * time.Second
			}
		}
		if e.RequestID == "" {
			e.RequestID = header.Get("request-id")
		}
	}
	return e
}

func fillError(e *apiError, j *errorJSON) {
	if e.HTTPStatus == 0 && j.Code >= 100 && j.Code < 600 {
		e.HTTPStatus = j.Code
	}
	e.Status, e.Message = j.Status, j.Message
	if e.Status == "" {
		e.Status = statusFromHTTP(e.HTTPStatus)
	}
	for _, d := range j.Details {
		if d.RequestID != "" {
			e.RequestID = d.RequestID
		}
		for _, x := range d.Errors {
			kinds := make([]string, 0, len(x.ErrorCode))
			for k := range x.ErrorCode {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			for _, k := range kinds {
				var v string
				if json.Unmarshal(x.ErrorCode[k], &v) == nil {
					e.Codes = append(e.Codes, k+":"+v)
				}
			}
			if x.Message != "" {
				e.Messages = append(e.Messages, x.Message)
			}
			if x.Details != nil && x.Details.QuotaErrorDetails != nil {
				if d, ok := parseDuration(x.Details.QuotaErrorDetails.RetryDelay); ok && d > e.RetryDelay {
					e.RetryDelay = d
				}
			}
		}
	}
}

// parseDuration reads a protobuf Duration in JSON form ("30s", "1.5s").
func parseDuration(s string) (time.Duration, bool) {
	v, ok := strings.CutSuffix(strings.TrimSpace(s), "s")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 86400*7 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

func statusFromHTTP(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return ""
}

// snippet quotes the start of a body for an error message.
func snippet(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return strconv.Quote(s)
}

// streamError is a response that could not be read: truncated, not JSON, or
// not the documented shape.
type streamError struct{ msg string }

func (e *streamError) Error() string { return "unreadable Google Ads API response: " + e.msg }

// tokenError is a failure to get an access token.
type tokenError struct {
	// Code and Description are the OAuth error (invalid_grant, …), when the
	// token endpoint answered with one.
	Code, Description string
	HTTPStatus        int
	Err               error
}

func (e *tokenError) Error() string {
	switch {
	case e.Code != "":
		s := "Google's OAuth server refused the refresh token: " + e.Code
		if e.Description != "" {
			s += " (" + e.Description + ")"
		}
		return s
	case e.HTTPStatus != 0:
		return fmt.Sprintf("Google's OAuth server answered HTTP %d", e.HTTPStatus)
	}
	return "getting an access token: " + e.Err.Error()
}

func (e *tokenError) Unwrap() error { return e.Err }

// description is what a failure means for the user.
type description struct {
	kind       outcome.Code
	cause, fix string
	retryAfter time.Duration
	// retry: the same request may succeed later.
	retry bool
}

const reauthorize = "re-authorize: create a new refresh token for the " + Scope + " scope (docs/googleads.md) and set sources.google_ads.refresh_token"

// describe says what an error means: its kind, cause and fix.
func describe(err error) description {
	var ae *apiError
	var te *tokenError
	var se *streamError
	switch {
	case errors.As(err, &te):
		switch te.Code {
		case "invalid_grant":
			return description{kind: source.PermissionDenied, cause: te.Error(), fix: reauthorize}
		case "invalid_client", "unauthorized_client":
			return description{kind: source.PermissionDenied, cause: te.Error(),
				fix: "check sources.google_ads.client_id and client_secret: they must be the OAuth client the refresh token was issued to"}
		}
		if te.HTTPStatus >= 400 && te.HTTPStatus < 500 {
			return description{kind: source.PermissionDenied, cause: te.Error(), fix: reauthorize}
		}
		return description{kind: source.Unavailable, cause: te.Error(), fix: "retry in a minute", retry: true}
	case errors.As(err, &ae):
		return describeAPI(ae)
	case errors.As(err, &se):
		return description{kind: source.Unavailable, cause: se.Error(), fix: "retry in a minute", retry: true}
	}
	return description{kind: source.Unavailable, cause: "the Google Ads API could not be reached: " + err.Error(),
		fix: "check the network and retry in a minute", retry: true}
}

// retryVerdict is what a failed request means for the shared retry loop: a
// token refreshed after a 401 is tried again at once; what describe says may
// succeed later is retried after Google's retryDelay (or Retry-After), when
// it gave one; the rest fails the same way again.
func retryVerdict(err error) apiclient.Verdict {
	if errors.Is(err, errRetryNow) {
		return apiclient.RetryNow
	}
	if d := describe(err); d.retry {
		return apiclient.Retry(d.retryAfter)
	}
	return apiclient.Permanent
}

func describeAPI(e *apiError) description {
	cause := e.Error()
	switch {
	case e.Status == "RESOURCE_EXHAUSTED" || e.HTTPStatus == http.StatusTooManyRequests:
		d := description{kind: source.RateLimited, cause: cause, retryAfter: e.RetryDelay, retry: true}
		if e.RetryDelay > 0 {
			d.fix = fmt.Sprintf("retry after %s", roundUp(e.RetryDelay))
		} else {
			d.fix = "retry in a few minutes, or query fewer accounts at once"
		}
		return d
	case e.Status == "UNAUTHENTICATED" || e.HTTPStatus == http.StatusUnauthorized:
		d := description{kind: source.PermissionDenied, cause: cause, fix: reauthorize}
		if e.has("DEVELOPER_TOKEN_INVALID") {
			d.fix = "check sources.google_ads.developer_token, or remove it if your Google Cloud project no longer needs one"
		}
		if e.has("NOT_ADS_USER") {
			d.fix = "authorize with a Google account that has access to Google Ads"
		}
		return d
	case e.Status == "PERMISSION_DENIED" || e.HTTPStatus == http.StatusForbidden:
		d := description{kind: source.PermissionDenied, cause: cause,
			fix: "give the Google account that authorized adsmcp access to this account in Google Ads, or set sources.google_ads.login_customer_id to the manager account it is reached through"}
		switch {
		case e.has("CUSTOMER_NOT_ENABLED"):
			d.fix = "the account is not enabled or was deactivated in Google Ads; query another account"
		case e.has("DEVELOPER_TOKEN_NOT_APPROVED"), e.has("DEVELOPER_TOKEN_PROHIBITED"), e.has("DEVELOPER_TOKEN_NOT_ON_ALLOWLIST"),
			e.has("CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION"):
			d.fix = "the Google Cloud project (or developer token) is only approved for test accounts: apply for Basic or Standard access in the Google Ads API Center"
		case e.has("PROJECT_DISABLED"):
			d.fix = "enable the Google Ads API in the Google Cloud project of the OAuth client"
		case e.has("MISSING_TOS"):
			d.fix = "accept the Google Ads API terms of service in the API Center (ads.google.com/aw/apicenter)"
		case e.has("INVALID_LOGIN_CUSTOMER_ID_SERVING_CUSTOMER_ID_COMBINATION"):
			d.fix = "sources.google_ads.login_customer_id must be a manager account that manages this account"
		}
		return d
	case e.HTTPStatus == http.StatusNotFound || e.Status == "NOT_FOUND" || e.Status == "UNIMPLEMENTED":
		return description{kind: source.Rejected, cause: cause,
			fix: "check sources.google_ads.api_version: Google retires API versions about a year after their release"}
	case e.Status == "INVALID_ARGUMENT" || e.Status == "FAILED_PRECONDITION" || e.Status == "OUT_OF_RANGE" ||
		(e.HTTPStatus >= 400 && e.HTTPStatus < 500):
		return description{kind: source.Rejected, cause: cause,
			fix: "Google refused the request adsmcp built for this query: try a simpler query (fewer dimensions or filters) and report the problem with the request ID"}
	}
	return description{kind: source.Unavailable, cause: cause, fix: "Google Ads had a transient failure: retry in a minute", retry: true}
}

// roundUp writes a wait as whole seconds, rounded up ("30s", "2m0s").
func roundUp(d time.Duration) time.Duration {
	return ((d + time.Second - 1) / time.Second) * time.Second
}

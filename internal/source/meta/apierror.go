package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/apiclient"
)

// APIError is an error the Graph API answered with:
// {"error":{"message","type","code","error_subcode","fbtrace_id",…}}.
type APIError struct {
	// HTTPStatus is the response's status code (0 when parsed from a body alone).
	HTTPStatus  int
	Code        int
	Subcode     int
	Type        string
	Message     string
	UserTitle   string
	UserMessage string
	FBTraceID   string
	IsTransient bool
	// RetryAfter is when access returns, from the usage headers
	// (estimated_time_to_regain_access) or Retry-After; 0 when not said.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Meta API error %d", e.Code)
	if e.Subcode != 0 {
		fmt.Fprintf(&b, "/%d", e.Subcode)
	}
	if e.Type != "" {
		fmt.Fprintf(&b, " (%s)", e.Type)
	}
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, ", HTTP %d", e.HTTPStatus)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.FBTraceID != "" {
		b.WriteString(" [fbtrace_id " + e.FBTraceID + "]")
	}
	return b.String()
}

type rawError struct {
	Error *struct {
		Message     string     `json:"message"`
		Type        string     `json:"type"`
		Code        flexNumber `json:"code"`
		Subcode     flexNumber `json:"error_subcode"`
		FBTraceID   string     `json:"fbtrace_id"`
		IsTransient bool       `json:"is_transient"`
		UserTitle   string     `json:"error_user_title"`
		UserMessage string     `json:"error_user_msg"`
	} `json:"error"`
}

// ParseError parses a Graph API error envelope. A body that is not one is an
// error; it never panics, whatever the body.
func ParseError(body []byte) (*APIError, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("empty body, not a Meta error response")
	}
	var raw rawError
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a Meta error response: %w", err)
	}
	if raw.Error == nil {
		return nil, errors.New("not a Meta error response: no error object")
	}
	e := &APIError{Type: raw.Error.Type, Message: raw.Error.Message, FBTraceID: raw.Error.FBTraceID,
		IsTransient: raw.Error.IsTransient, UserTitle: raw.Error.UserTitle, UserMessage: raw.Error.UserMessage}
	var err error
	if e.Code, err = smallInt("code", raw.Error.Code); err != nil {
		return nil, err
	}
	if e.Subcode, err = smallInt("error_subcode", raw.Error.Subcode); err != nil {
		return nil, err
	}
	if e.Code == 0 && e.Message == "" {
		return nil, errors.New("not a Meta error response: the error object has neither code nor message")
	}
	return e, nil
}

func smallInt(name string, n flexNumber) (int, error) {
	if !n.present || n.s == "" {
		return 0, nil
	}
	m, err := parseMicros(n.s)
	if err != nil || m%1e6 != 0 || m/1e6 > math.MaxInt32 || m/1e6 < math.MinInt32 {
		return 0, fmt.Errorf("not a Meta error response: %s %q is not an integer", name, truncate(n.s, 40))
	}
	return int(m / 1e6), nil
}

// Error classes, by code (developers.facebook.com/docs/marketing-api/error-reference and /docs/graph-api/overview/rate-limiting).

// throttled: application, user, page, ad-account and business-use-case limits.
func (e *APIError) throttled() bool {
	switch e.Code {
	case 4, 17, 32, 613:
		return true
	}
	return e.Code >= 80000 && e.Code <= 80014
}

// reduceData: "Please reduce the amount of data you're asking for, then retry
// your request" (code 1): the request is too big to answer synchronously.
func (e *APIError) reduceData() bool {
	return e.Code == 1 && strings.Contains(strings.ToLower(e.Message), "reduce the amount of data")
}

// tokenProblem: invalid, expired or revoked access token (190), or a session
// that is no longer valid (102).
func (e *APIError) tokenProblem() bool { return e.Code == 190 || e.Code == 102 }

// permission: missing permission (10, 200–299) or an object the token cannot
// see (100/33: "does not exist, cannot be loaded due to missing permissions").
func (e *APIError) permission() bool {
	return e.Code == 10 || e.Code >= 200 && e.Code <= 299 || e.Code == 100 && e.Subcode == 33
}

// transient: Meta says to retry (code 1 other than too much data, 2, is_transient,
// or a server error).
func (e *APIError) transient() bool {
	if e.reduceData() {
		return false
	}
	return e.Code == 1 || e.Code == 2 || e.IsTransient || e.HTTPStatus >= 500
}

// retryVerdict is what a failed request means for the shared retry loop:
// throttling and transient errors may succeed later — after the time the usage
// headers say access returns, when they say it — as may a request that got no
// response; anything else fails the same way again.
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

// regainAccess reads how long until access returns from the rate-limit
// headers: X-Business-Use-Case-Usage (estimated_time_to_regain_access, in
// minutes, per business use case), X-Ad-Account-Usage (reset_time_duration, in
// seconds, when the account is at its limit) and Retry-After (seconds). The
// longest wins; 0 when none says.
func regainAccess(h http.Header) time.Duration {
	var d time.Duration
	if v := h.Get("X-Business-Use-Case-Usage"); v != "" {
		var buc map[string][]struct {
			Minutes flexNumber `json:"estimated_time_to_regain_access"`
		}
		if json.Unmarshal([]byte(v), &buc) == nil {
			for _, entries := range buc {
				for _, e := range entries {
					if m, err := optionalMicros("", e.Minutes); err == nil && m > 0 {
						d = max(d, durationOf(m, time.Minute))
					}
				}
			}
		}
	}
	if v := h.Get("X-Ad-Account-Usage"); v != "" {
		var u struct {
			Pct   flexNumber `json:"acc_id_util_pct"`
			Reset flexNumber `json:"reset_time_duration"`
		}
		if json.Unmarshal([]byte(v), &u) == nil {
			pct, _ := optionalMicros("", u.Pct)
			if s, err := optionalMicros("", u.Reset); err == nil && s > 0 && pct >= 100e6 {
				d = max(d, durationOf(s, time.Second))
			}
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := parseMicros(strings.TrimSpace(v)); err == nil && s > 0 {
			d = max(d, durationOf(s, time.Second))
		}
	}
	return d
}

// durationOf is micros of unit as a duration, capped at a day.
func durationOf(micros int64, unit time.Duration) time.Duration {
	const maxDur = 24 * time.Hour
	if micros/1e6 >= int64(maxDur/unit) {
		return maxDur
	}
	return time.Duration(micros) * unit / 1e6
}

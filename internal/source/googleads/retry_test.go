package googleads

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/oauth2"

	"github.com/adsmcp/adsmcp/internal/source/apiclient/apiclienttest"
)

// TestWaitHintsReachTheRetryLoop: Google's retryDelay (or Retry-After) is the
// wait before the retry (plus at most 10 % of jitter), and both requests
// count as source calls. The fake clock of synctest makes the waits exact
// without sleeping.
func TestWaitHintsReachTheRetryLoop(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		wait   time.Duration
	}{
		{"retryDelay", nil, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"errors":[{"errorCode":{"quotaError":"RESOURCE_EXHAUSTED"},"details":{"quotaErrorDetails":{"retryDelay":"4s"}}}]}]}}`, 4 * time.Second},
		{"Retry-After", http.Header{"Retry-After": {"6"}}, `{}`, 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &apiclienttest.Transport{Responses: []apiclienttest.Response{
					{Status: http.StatusTooManyRequests, Header: tc.header, Body: tc.body},
					{Status: http.StatusOK, Body: `{"resourceNames":[]}`},
				}}
				c, err := New(Options{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at"}),
					HTTPClient: &http.Client{Transport: rt}, RequestsPerSecond: -1})
				if err != nil {
					t.Fatal(err)
				}
				apiclienttest.CheckRetriedOnceAfter(t, rt, tc.wait, func(ctx context.Context) error {
					_, err := c.Accounts(ctx)
					return err
				})
			})
		})
	}
}

package meta

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/apiclient/apiclienttest"
)

// TestWaitHintsReachTheRetryLoop: the time Meta's headers say access returns
// is the wait before the retry (plus at most 10 % of jitter), and both
// requests count as source calls. The fake clock of synctest makes the waits
// exact without sleeping.
func TestWaitHintsReachTheRetryLoop(t *testing.T) {
	for _, tc := range []struct {
		name, header, value string
		wait                time.Duration
	}{
		{"Retry-After", "Retry-After", "7", 7 * time.Second},
		{"business use case", "X-Business-Use-Case-Usage", `{"123":[{"type":"ads_insights","estimated_time_to_regain_access":1}]}`, time.Minute},
		{"ad account at 100%", "X-Ad-Account-Usage", `{"acc_id_util_pct":100,"reset_time_duration":20}`, 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &apiclienttest.Transport{Responses: []apiclienttest.Response{
					{Status: http.StatusBadRequest, Header: http.Header{tc.header: {tc.value}},
						Body: `{"error":{"message":"User request limit reached","type":"OAuthException","code":17}}`},
					{Status: http.StatusOK, Body: `{"data":[],"paging":{}}`},
				}}
				c, err := New(Options{AccessToken: "tok", HTTPClient: &http.Client{Transport: rt}, MaxRetryWait: 2 * time.Minute})
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

package meta

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adsmcp/adsmcp/internal/source"
)

// throttledOnce is an HTTP transport that answers the first request with a
// throttling error carrying header, and later ones with an empty account
// list, recording when each request came.
type throttledOnce struct {
	header http.Header
	mu     sync.Mutex
	times  []time.Time
}

func (t *throttledOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.times = append(t.times, time.Now())
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"data":[],"paging":{}}`))}
	if len(t.times) == 1 {
		resp.StatusCode, resp.Header = http.StatusBadRequest, t.header
		resp.Body = io.NopCloser(strings.NewReader(`{"error":{"message":"User request limit reached","type":"OAuthException","code":17}}`))
	}
	return resp, nil
}

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
				rt := &throttledOnce{header: http.Header{tc.header: {tc.value}}}
				c, err := New(Options{AccessToken: "tok", HTTPClient: &http.Client{Transport: rt}, MaxRetryWait: 2 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				var calls source.Calls
				if _, err := c.Accounts(source.WithCalls(context.Background(), &calls)); err != nil {
					t.Fatal(err)
				}
				if len(rt.times) != 2 || calls.N() != 2 {
					t.Fatalf("%d requests, %d counted; want 2", len(rt.times), calls.N())
				}
				if got := rt.times[1].Sub(rt.times[0]); got < tc.wait || got > tc.wait+tc.wait/10 {
					t.Errorf("retried after %v, want %v (+10%%)", got, tc.wait)
				}
			})
		})
	}
}

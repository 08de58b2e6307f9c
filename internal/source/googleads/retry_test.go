package googleads

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/oauth2"

	"github.com/adsmcp/adsmcp/internal/source"
)

// quotaOnce is an HTTP transport that answers the first request with a 429
// (header and body as given), and later ones with no accessible customers,
// recording when each request came.
type quotaOnce struct {
	header http.Header
	body   string
	mu     sync.Mutex
	times  []time.Time
}

func (t *quotaOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.times = append(t.times, time.Now())
	if len(t.times) == 1 {
		return &http.Response{StatusCode: http.StatusTooManyRequests, Header: t.header, Request: r,
			Body: io.NopCloser(strings.NewReader(t.body))}, nil
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"resourceNames":[]}`))}, nil
}

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
		{"retryDelay", http.Header{}, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"errors":[{"errorCode":{"quotaError":"RESOURCE_EXHAUSTED"},"details":{"quotaErrorDetails":{"retryDelay":"4s"}}}]}]}}`, 4 * time.Second},
		{"Retry-After", http.Header{"Retry-After": {"6"}}, `{}`, 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &quotaOnce{header: tc.header, body: tc.body}
				c, err := New(Options{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "at"}),
					HTTPClient: &http.Client{Transport: rt}, RequestsPerSecond: -1})
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

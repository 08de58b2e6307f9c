// Package apiclienttest helps a connector test that its platform's wait hints
// reach the shared retry loop of apiclient: a scripted HTTP transport that
// records when each request came (run it in a testing/synctest bubble for
// exact waits without sleeping), and the check of one retry.
package apiclienttest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/source"
)

// Response is a scripted answer.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Transport answers requests with Responses in turn, repeating the last, and
// records when each request came. No network is used.
type Transport struct {
	Responses []Response

	mu    sync.Mutex
	times []time.Time
}

// RoundTrip answers r with the next scripted response.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.times = append(t.times, time.Now())
	a := t.Responses[min(len(t.times), len(t.Responses))-1]
	h := a.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: a.Status, Header: h, Request: r, Body: io.NopCloser(strings.NewReader(a.Body))}, nil
}

// Times are when the requests came, in order.
func (t *Transport) Times() []time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]time.Time(nil), t.times...)
}

// CheckRetriedOnceAfter runs call (a connector's request through tr) and
// fails the test unless it succeeds after exactly two requests, both counted
// in its source_calls, the second after wait plus at most the 10 % of jitter
// the shared loop adds to a platform's wait.
func CheckRetriedOnceAfter(t testing.TB, tr *Transport, wait time.Duration, call func(context.Context) error) {
	t.Helper()
	var calls source.Calls
	if err := call(source.WithCalls(context.Background(), &calls)); err != nil {
		t.Fatal(err)
	}
	times := tr.Times()
	if len(times) != 2 || calls.N() != 2 {
		t.Fatalf("%d requests, %d counted; want 2", len(times), calls.N())
	}
	if got := times[1].Sub(times[0]); got < wait || got > wait+wait/10 {
		t.Errorf("retried after %v, want %v (+10%%)", got, wait)
	}
}

package apiclient

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCountingClient: every request through the client counts once in its
// context's source_calls, failed ones included; the caller's client is left
// as it was.
func TestCountingClient(t *testing.T) {
	sent := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		if r.URL.Path == "/down" {
			return nil, io.ErrUnexpectedEOF
		}
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok")), Request: r}, nil
	})
	base := &http.Client{Transport: rt}
	hc := CountingClient(base)
	if base.Transport == hc.Transport {
		t.Fatal("the caller's client was changed")
	}
	var calls source.Calls
	ctx := source.WithCalls(context.Background(), &calls)
	for _, path := range []string{"/a", "/b", "/down"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://api.test"+path, nil)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	// Nobody counting: no panic, nothing counted.
	req, _ := http.NewRequest(http.MethodGet, "http://api.test/a", nil)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
	if calls.N() != 3 || sent != 4 {
		t.Errorf("%d counted, %d sent; want 3 counted of 4 sent", calls.N(), sent)
	}
	if ct, ok := CountingClient(nil).Transport.(countingTransport); !ok || ct.base != http.DefaultTransport {
		t.Errorf("CountingClient(nil) transport: %#v", CountingClient(nil).Transport)
	}
}

package apiclient

import (
	"net/http"

	"github.com/adsmcp/adsmcp/internal/source"
)

// CountingClient returns a copy of base (nil: a default client) whose every
// HTTP request — first attempts, retries, polls, token refreshes, redirects —
// counts in the source_calls of the request's context (source.WithCalls):
// counted in the transport, nothing a connector sends can be missed.
func CountingClient(base *http.Client) *http.Client {
	var hc http.Client
	if base != nil {
		hc = *base
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = countingTransport{rt}
	return &hc
}

// countingTransport counts each request, then sends it with base.
type countingTransport struct{ base http.RoundTripper }

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	source.CountCall(r.Context())
	return t.base.RoundTrip(r)
}

package fakescale

import (
	"net"
	"net/http"
	"net/http/httptest"
	"time"
)

// Serving says where and how a fake serves, for programs that run one
// (test/fakeapis). The zero value is a test's: a fresh loopback port, no
// middleware.
type Serving struct {
	// Listener, when set, is the socket to serve on (the fake closes it).
	Listener net.Listener
	// Wrap, when set, wraps the fake's handler (e.g. a per-request latency).
	Wrap func(http.Handler) http.Handler
}

// Start serves h as Serving says.
func (s Serving) Start(h http.Handler) *httptest.Server {
	if s.Wrap != nil {
		h = s.Wrap(h)
	}
	if s.Listener == nil {
		return httptest.NewServer(h)
	}
	srv := httptest.NewUnstartedServer(h)
	_ = srv.Listener.Close() // the loopback port httptest took; ours replaces it
	srv.Listener = s.Listener
	srv.Start()
	return srv
}

// Latency is a Serving.Wrap delaying every request by d() before the fake
// answers it, as an ad platform's API takes seconds per report; d is asked
// per request, so a benchmark can sync without latency and then ask live
// queries with it. A request its client gives up stops waiting.
func Latency(d func() time.Duration) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if wait := d(); wait > 0 {
				t := time.NewTimer(wait)
				defer t.Stop()
				select {
				case <-t.C:
				case <-r.Context().Done():
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

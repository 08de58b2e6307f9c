package fakescale

import (
	"net"
	"net/http"
	"net/http/httptest"
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

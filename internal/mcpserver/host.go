package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/adsmcp/adsmcp/internal/outcome"
)

// IsLoopbackHost reports whether host — a Host header or an address, with or
// without a port — names this machine's loopback: "localhost" in any case (a
// host name is case-insensitive: RFC 3986 §3.2.2, RFC 9110 §4.2.3) or a
// loopback IP. It is the one rule for every route (hostGuard) and for the
// refusal to serve a public address without auth.
func IsLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.Trim(host, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// hostGuard refuses, with 403, a request that reached a loopback listener
// with a Host header naming another machine: a page on evil.example whose name
// was rebound to 127.0.0.1 sends Host: evil.example, so it cannot read
// /metrics, /readyz or anything else a browser on this machine could reach.
// It guards every route, /mcp included (the SDK's own check, which compares
// "localhost" case-sensitively, is off: see NewHTTPServer).
func hostGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil &&
			IsLoopbackHost(local.String()) && !IsLoopbackHost(r.Host) {
			outcome.WriteHTTPError(w, http.StatusForbidden, outcome.HTTPError{Error: fmt.Sprintf("Host header %q refused: this server listens on the loopback and answers only Host localhost or a loopback address (DNS-rebinding protection); a proxy in front must pass such a Host", r.Host)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

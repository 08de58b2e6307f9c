package mcpserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostCheckOnEveryRoute: on a loopback listener a foreign Host header (a
// DNS-rebinding page) is refused on every route — /metrics and /readyz as
// /mcp — while loopback names are served, by one rule: a host name is
// case-insensitive (RFC 3986 §3.2.2, RFC 9110 §4.2.3), so LOCALHOST is
// localhost on /mcp as on /healthz.
func TestHostCheckOnEveryRoute(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("secret figures")) })
	url := startHTTP(t, testConfig(t), HTTPOptions{Handlers: map[string]http.Handler{"GET /metrics": ok, "GET /readyz": ok}})
	base := strings.TrimSuffix(url, MCPPath)
	port := base[strings.LastIndex(base, ":")+1:]
	cases := []struct {
		host     string
		accepted bool
	}{
		{"evil.example", false},
		{"evil.example:" + port, false},
		{"127.0.0.2.nip.io:" + port, false},
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{"LocalHost", true},
		{"127.0.0.1:" + port, true},
		{"[::1]:" + port, true},
	}
	for _, c := range cases {
		for _, path := range []string{"/metrics", "/readyz", "/healthz"} {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Host = c.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode != http.StatusForbidden; got != c.accepted {
				t.Errorf("GET %s with Host %s: %d, want accepted=%v", path, c.host, resp.StatusCode, c.accepted)
			}
		}
		resp, body := post(t, url, map[string]string{"Host": c.host}, initialize)
		if got := resp.StatusCode != http.StatusForbidden; got != c.accepted {
			t.Errorf("POST /mcp with Host %s: %d %q, want accepted=%v", c.host, resp.StatusCode, body, c.accepted)
		}
		if !c.accepted && !strings.Contains(body, "DNS-rebinding") {
			t.Errorf("POST /mcp with Host %s: %q does not say why", c.host, body)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1": true, "127.9.9.9:8080": true, "[::1]:1": true, "::1": true,
		"evil.example": false, "0.0.0.0:80": false, "10.0.0.1": false, "localhost.evil.example": false, "": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

package mcpserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostCheckOnEveryRoute: on a loopback listener a foreign Host header (a
// DNS-rebinding page) is refused on every route — /metrics and /readyz as
// /mcp — while loopback names are served.
func TestHostCheckOnEveryRoute(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("secret figures")) })
	url := startHTTP(t, testConfig(t), HTTPOptions{Handlers: map[string]http.Handler{"GET /metrics": ok, "GET /readyz": ok}})
	base := strings.TrimSuffix(url, MCPPath)
	port := base[strings.LastIndex(base, ":")+1:]
	for _, path := range []string{"/metrics", "/readyz", "/healthz"} {
		for _, c := range []struct {
			host string
			code int
		}{
			{"evil.example", http.StatusForbidden},
			{"evil.example:" + port, http.StatusForbidden},
			{"127.0.0.2.nip.io:" + port, http.StatusForbidden},
			{"localhost:" + port, http.StatusOK},
			{"127.0.0.1:" + port, http.StatusOK},
			{"[::1]:" + port, http.StatusOK},
		} {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Host = c.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Errorf("GET %s with Host %s: %d, want %d", path, c.host, resp.StatusCode, c.code)
			}
		}
	}
	resp, body := post(t, url, map[string]string{"Host": "evil.example"}, initialize)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "DNS-rebinding") {
		t.Errorf("POST /mcp with Host evil.example: %d %q", resp.StatusCode, body)
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

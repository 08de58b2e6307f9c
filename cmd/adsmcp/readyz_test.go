package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/adsmcp/adsmcp/test/skipreport"
)

// TestReadyzSparesThePlatforms: 100 concurrent /readyz probes of a server on
// the ad-platform APIs (their local fakes) cost at most one account listing
// upstream — not one each, in the connectors' rate limiter ahead of the
// tenants' queries — and /readyz and /metrics refuse a foreign Host header as
// /mcp does (DNS rebinding).
func TestReadyzSparesThePlatforms(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	cfg, m, _ := liveConfig(t)
	url := serveHTTPProcess(t, binary(t), "serve", "--config", cfg, "--http", "127.0.0.1:0")
	base := strings.TrimSuffix(url, "/mcp")
	m.ClearRequests()

	const probes = 100
	codes := make(chan int, probes)
	var wg sync.WaitGroup
	for range probes {
		wg.Go(func() {
			resp, err := http.Get(base + "/readyz")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a probe got %d, want 200", c)
		}
	}
	listings := 0
	for _, r := range m.Requests() {
		if strings.HasSuffix(r.Path, "/me/adaccounts") {
			listings++
		}
	}
	if listings > 1 {
		t.Errorf("%d probes made %d account listings at Meta, want at most 1", probes, listings)
	}
	t.Logf("%d probes → %d Meta account listings", probes, listings)

	for _, path := range []string{"/readyz", "/metrics"} {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Host = "rebound.evil.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host rebound.evil.example: %d, want 403", path, resp.StatusCode)
		}
	}
}

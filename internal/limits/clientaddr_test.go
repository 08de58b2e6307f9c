package limits

import (
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func mustProxies(t *testing.T, entries ...string) Proxies {
	t.Helper()
	p, bad, ok := ParseProxies(entries)
	if !ok {
		t.Fatalf("ParseProxies: %q", bad)
	}
	return p
}

func TestClientAddr(t *testing.T) {
	proxies := mustProxies(t, "10.0.0.0/8", "127.0.0.1", "::1")
	cases := []struct {
		name   string
		p      Proxies
		remote string
		xff    []string
		want   string
	}{
		{"no proxies configured: the header is ignored", nil, "127.0.0.1:5000", []string{"203.0.113.7"}, "127.0.0.1"},
		{"an untrusted peer's header is ignored", proxies, "198.51.100.9:5000", []string{"203.0.113.7"}, "198.51.100.9"},
		{"a trusted peer names the client", proxies, "127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"the right-most untrusted hop is the client", proxies, "10.1.2.3:80", []string{"192.0.2.1, 203.0.113.7, 10.9.9.9"}, "203.0.113.7"},
		{"several header lines are one list", proxies, "10.1.2.3:80", []string{"192.0.2.1", "203.0.113.7", "10.9.9.9"}, "203.0.113.7"},
		{"a spoofed left part proves nothing", proxies, "127.0.0.1:1", []string{"1.2.3.4, 203.0.113.7"}, "203.0.113.7"},
		{"a trusted peer without the header is the client", proxies, "127.0.0.1:5000", nil, "127.0.0.1"},
		{"every hop trusted: the left-most", proxies, "127.0.0.1:5000", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5"},
		{"garbage ends the walk at the last address believed", proxies, "127.0.0.1:5000", []string{"203.0.113.7, not-an-ip"}, "127.0.0.1"},
		{"IPv6 peer and client", proxies, "[::1]:443", []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv4-mapped IPv6 peer", proxies, "[::ffff:127.0.0.1]:443", []string{"203.0.113.7"}, "203.0.113.7"},
	}
	for _, c := range cases {
		if got := c.p.ClientAddr(c.remote, c.xff); got != c.want {
			t.Errorf("%s: ClientAddr(%q, %q) = %q, want %q", c.name, c.remote, c.xff, got, c.want)
		}
	}
}

func TestParseProxies(t *testing.T) {
	if _, bad, ok := ParseProxies([]string{"10.0.0.0/8", "proxy.internal"}); ok || bad != "proxy.internal" {
		t.Errorf("a host name was accepted (bad %q)", bad)
	}
	p := mustProxies(t, "10.1.2.3/8", " ::1 ")
	if got := []string{p[0].String(), p[1].String()}; !slices.Equal(got, []string{"10.0.0.0/8", "::1/128"}) {
		t.Errorf("parsed %v", got)
	}
}

// FuzzClientAddr: any header, from any peer, gives the peer's host or one
// of the header's addresses, and never panics; from a peer that is not a
// trusted proxy, always the peer's host.
func FuzzClientAddr(f *testing.F) {
	f.Add("127.0.0.1:1", "203.0.113.7, 10.0.0.1")
	f.Add("[::1]:2", ",,, ::ffff:1.2.3.4 ,zz")
	f.Add("198.51.100.9:3", "203.0.113.7")
	f.Add("garbage", "1.1.1.1")
	p, _, _ := ParseProxies([]string{"10.0.0.0/8", "127.0.0.1", "::1"})
	f.Fuzz(func(t *testing.T, remote, xff string) {
		got := p.ClientAddr(remote, []string{xff})
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			host = remote
		}
		if got == host {
			return
		}
		if peer, err := netip.ParseAddr(host); err != nil || !p.trusts(peer.Unmap()) {
			t.Fatalf("ClientAddr(%q, %q) = %q from a peer that is not a trusted proxy", remote, xff, got)
		}
		for _, hop := range strings.Split(xff, ",") {
			if a, err := netip.ParseAddr(strings.TrimSpace(hop)); err == nil && a.Unmap().String() == got {
				return
			}
		}
		t.Errorf("ClientAddr(%q, %q) = %q: neither the peer nor a hop", remote, xff, got)
	})
}

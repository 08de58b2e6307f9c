package limits

import (
	"net"
	"net/netip"
	"strings"
)

// Proxies are the reverse proxies whose X-Forwarded-For a server believes:
// behind one, every request comes from the proxy's address, and only the
// header says which client sent it. An empty set believes no header, since
// any client can write one.
type Proxies []netip.Prefix

// ParseProxies reads addresses and CIDR prefixes ("10.0.0.0/8", "127.0.0.1",
// "::1"); bad is the first entry it cannot read.
func ParseProxies(entries []string) (p Proxies, bad string, ok bool) {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if pre, err := netip.ParsePrefix(e); err == nil {
			p = append(p, pre.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, e, false
		}
		p = append(p, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return p, "", true
}

func (p Proxies) trusts(a netip.Addr) bool {
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr is the address of the client that sent a request, given its
// peer (http.Request.RemoteAddr) and its X-Forwarded-For values. Only a peer
// that is a trusted proxy is believed: then the client is the right-most
// address of the header that is not a trusted proxy itself (addresses left
// of it were written by whoever sent the request, and prove nothing). An
// entry that is not an address ends the walk at the last one believed.
func (p Proxies) ClientAddr(remoteAddr string, forwardedFor []string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(p) == 0 || !p.trusts(peer.Unmap()) {
		return host
	}
	client := host
	var hops []string
	for _, v := range forwardedFor {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		client = a.Unmap().String()
		if !p.trusts(a.Unmap()) {
			break
		}
	}
	return client
}

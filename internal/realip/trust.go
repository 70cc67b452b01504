package realip

import (
	"fmt"
	"net/netip"
	"strings"
)

// Trust is the set of proxies whose word about the client is taken. The
// zero Trust trusts no one.
type Trust struct {
	prefixes []netip.Prefix
}

// ParseTrust reads CIDRs ("10.0.0.0/8", "2001:db8::/32") and single
// addresses ("10.0.0.1", a /32 or /128).
func ParseTrust(cidrs []string) (Trust, error) {
	var t Trust
	for _, s := range cidrs {
		p, err := parsePrefix(s)
		if err != nil {
			return Trust{}, err
		}
		t.prefixes = append(t.prefixes, p)
	}
	return t, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or a CIDR such as 10.0.0.0/8", s)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or 2001:db8::/32", s)
	}
	return p.Masked(), nil
}

// Empty reports whether t trusts no one.
func (t Trust) Empty() bool { return len(t.prefixes) == 0 }

// Contains reports whether a is a trusted proxy.
func (t Trust) Contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client returns the client of a request that came from peer with these
// lines of the forwarding header: peer itself unless it is trusted; else,
// walking the header's addresses from the right (the hop nearest roost),
// the first one that is not a trusted proxy. An element that is not an
// address (garbage, "unknown", an obfuscated name) stops the walk at the
// trusted hop that wrote it; a header of trusted proxies only gives the
// leftmost.
func (t Trust) Client(peer netip.Addr, h Header, lines []string) netip.Addr {
	client := peer.Unmap()
	for i := len(lines) - 1; i >= 0 && t.Contains(client); i-- {
		elems := strings.Split(lines[i], ",")
		for j := len(elems) - 1; j >= 0 && t.Contains(client); j-- {
			a, ok := h.element(elems[j])
			if !ok {
				return client
			}
			client = a
		}
	}
	return client
}

package realip

import (
	"net/netip"
	"strings"
)

// Header is the field a trusted proxy names the client in. Only one is
// read: a proxy that sets one passes the other through from the client
// unchanged, where anyone could write it.
type Header uint8

// The forwarding headers.
const (
	// XForwardedFor is X-Forwarded-For: "client, proxy1, proxy2", each an
	// address, perhaps with a port.
	XForwardedFor Header = iota
	// Forwarded is RFC 7239's Forwarded: "for=client;proto=https, for=...".
	Forwarded
)

// Name is the header's canonical name, as in http.Header.
func (h Header) Name() string {
	if h == Forwarded {
		return "Forwarded"
	}
	return "X-Forwarded-For"
}

// element reads the address of one comma-separated element.
func (h Header) element(e string) (netip.Addr, bool) {
	if h == Forwarded {
		return forwardedFor(e)
	}
	return parseNode(strings.TrimSpace(e))
}

// forwardedFor reads the for= parameter of one forwarded-element (RFC
// 7239 section 4: pairs separated by ';', names case-insensitive, values
// tokens or quoted strings).
func forwardedFor(e string) (netip.Addr, bool) {
	for pair := range strings.SplitSeq(e, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(name, "for") {
			return parseNode(unquote(value))
		}
	}
	return netip.Addr{}, false
}

// unquote strips the quotes of a quoted-string; RFC 7239 needs them
// around an IPv6 address or any value with a port.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// parseNode reads an address, an address and port, or a bracketed IPv6
// address with or without a port (RFC 7239 section 6, and what proxies
// write in X-Forwarded-For).
func parseNode(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), a.Zone() == ""
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), ap.Addr().Zone() == ""
	}
	if a, ok := strings.CutPrefix(s, "["); ok {
		if a, ok := strings.CutSuffix(a, "]"); ok {
			return parseNode(a)
		}
	}
	return netip.Addr{}, false
}

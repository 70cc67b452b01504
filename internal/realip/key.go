package realip

import "net/netip"

// Key is the address per-address limits count a under: a itself, or for
// an IPv6 address its first v6Bits bits (0, or 128 and more, keep the
// whole address). IPv4 addresses, and IPv4 written as IPv6, are whole.
func Key(a netip.Addr, v6Bits int) netip.Addr {
	a = a.Unmap()
	if !a.Is6() || v6Bits <= 0 || v6Bits >= 128 {
		return a
	}
	p, err := a.WithZone("").Prefix(v6Bits)
	if err != nil {
		return a
	}
	return p.Addr()
}

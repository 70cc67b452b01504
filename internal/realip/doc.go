// Package realip decides which address a connection or request is from:
// its peer's, unless the peer is a trusted proxy, whose word about the
// client (X-Forwarded-For, or Forwarded as RFC 7239 defines it) is then
// taken; and which key that address is counted under by per-address
// limits (an IPv6 address by its prefix, since one host rotates freely
// through its /64).
package realip

package proxyproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// MaxHeader is the largest header read: a version 1 header is at most 107
// bytes (the specification's bound), and a version 2 header's addresses
// and TLVs are taken up to this size. Load balancers send far less (AWS
// adds one TLV of a few dozen bytes); a header claiming more is refused.
const MaxHeader = 1024

// Errors of Parse.
var (
	// ErrIncomplete means b is a valid start of a header: read more.
	ErrIncomplete = errors.New("proxyproto: incomplete header")
	// ErrInvalid means b does not start with a valid header.
	ErrInvalid = errors.New("proxyproto: invalid PROXY protocol header")
)

// Header is what a PROXY header says.
type Header struct {
	// Source is the client's address and port. It is the zero AddrPort
	// when the header names no client (version 1 UNKNOWN, a version 2
	// LOCAL command or an address family other than TCP over IPv4 or
	// IPv6): the connection is the proxy's own, a health check, and is
	// known by its peer's address.
	Source netip.AddrPort
}

// v1Prefix starts a version 1 header; sigV2 is a version 2 header's first
// 12 bytes (the specification, section 2.2).
var (
	v1Prefix = []byte("PROXY ")
	sigV2    = []byte("\r\n\r\n\x00\r\nQUIT\n")
)

// v1Max is the longest version 1 header, CRLF included (section 2.1).
const v1Max = 107

// Parse decodes the header at the start of b and returns it with its
// length in bytes; the bytes after it are the connection's own.
func Parse(b []byte) (Header, int, error) {
	switch {
	case startsWith(b, sigV2):
		return parseV2(b)
	case startsWith(b, v1Prefix):
		return parseV1(b)
	}
	return Header{}, 0, ErrInvalid
}

// startsWith reports whether b starts with sig, or is shorter and could
// (ErrIncomplete follows from the parser).
func startsWith(b, sig []byte) bool {
	n := min(len(b), len(sig))
	return bytes.Equal(b[:n], sig[:n])
}

// parseV1 reads "PROXY TCP4 src dst sport dport\r\n" (or TCP6, or UNKNOWN
// followed by anything up to the CRLF).
func parseV1(b []byte) (Header, int, error) {
	end := bytes.Index(b[:min(len(b), v1Max)], []byte("\r\n"))
	if end < 0 {
		if len(b) < v1Max {
			return Header{}, 0, ErrIncomplete
		}
		return Header{}, 0, ErrInvalid
	}
	h, ok := v1Fields(string(b[len(v1Prefix):end]))
	if !ok {
		return Header{}, 0, ErrInvalid
	}
	return h, end + 2, nil
}

// v1Fields reads the fields after "PROXY ".
func v1Fields(line string) (Header, bool) {
	f := strings.Split(line, " ") // one space between fields: an empty one fails below
	if f[0] == "UNKNOWN" {
		return Header{}, true
	}
	if len(f) != 5 {
		return Header{}, false
	}
	src, err1 := netip.ParseAddr(f[1])
	_, err2 := netip.ParseAddr(f[2])
	port, ok1 := v1Port(f[3])
	_, ok2 := v1Port(f[4])
	family := f[0]
	if err1 != nil || err2 != nil || !ok1 || !ok2 || family != "TCP4" && family != "TCP6" {
		return Header{}, false
	}
	if src.Is4() != (family == "TCP4") || src.Zone() != "" {
		return Header{}, false
	}
	return Header{Source: netip.AddrPortFrom(src, port)}, true
}

// v1Port reads a decimal port without a leading zero.
func v1Port(s string) (uint16, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 16)
	return uint16(n), err == nil
}

// v2Fixed is a version 2 header's fixed part: the signature, the version
// and command, the family and protocol, and the length that follows.
const v2Fixed = 16

// parseV2 reads a binary version 2 header (section 2.2).
func parseV2(b []byte) (Header, int, error) {
	if len(b) < v2Fixed {
		return Header{}, 0, ErrIncomplete
	}
	verCmd, fam := b[12], b[13]
	n := v2Fixed + int(binary.BigEndian.Uint16(b[14:16]))
	if verCmd>>4 != 2 || verCmd&0xF > 1 || n > MaxHeader {
		return Header{}, 0, ErrInvalid
	}
	if len(b) < n {
		return Header{}, 0, ErrIncomplete
	}
	if verCmd&0xF == 0 { // LOCAL: the proxy's own connection
		return Header{}, n, nil
	}
	h, ok := v2Addresses(fam, b[v2Fixed:n])
	if !ok {
		return Header{}, 0, ErrInvalid
	}
	return h, n, nil
}

// v2Addresses reads the source of a PROXY command's address block; TLVs
// after it are skipped.
func v2Addresses(fam byte, a []byte) (Header, bool) {
	var size int
	switch fam {
	case 0x11: // TCP over IPv4
		size = 4
	case 0x21: // TCP over IPv6
		size = 16
	default: // UNSPEC, UDP, UNIX: no client address to take
		return Header{}, true
	}
	if len(a) < 2*size+4 {
		return Header{}, false
	}
	src, _ := netip.AddrFromSlice(a[:size])
	port := binary.BigEndian.Uint16(a[2*size:])
	return Header{Source: netip.AddrPortFrom(src, port)}, true
}

package pusher

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string (RFC 8259 section 7). It escapes
// '"', '\\' and the control characters below U+0020, writes each byte of
// invalid UTF-8 as \ufffd, as encoding/json does, and escapes U+2028 and
// U+2029 so the output is also a JavaScript string literal. '<', '>' and '&'
// are left alone: the output goes to a WebSocket, not into HTML. Runs of
// plain bytes are copied at once.
func appendQuoted[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(load64(s, i)) {
			i += 8
			continue
		}
		for stop := min(i+8, len(s)); i < stop; {
			c := s[i]
			switch {
			case c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\':
				i++
			case c < utf8.RuneSelf:
				dst = appendEscapedASCII(append(dst, s[start:i]...), c)
				i++
				start = i
			default:
				r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
				if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
					dst = appendUnicodeEscape(append(dst, s[start:i]...), r)
					start = i + size
				}
				i += size
			}
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Byte-parallel masks: lsb has the low bit of each byte set, msb the high.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plain8 reports whether none of the 8 bytes in x needs attention: no
// control character, quote, backslash or non-ASCII byte. A byte's high bit
// in (v - lsb*n) &^ v is set only if some byte of v is below n, so these
// tests are exact whatever the neighbouring bytes hold.
func plain8(x uint64) bool {
	quote := x ^ (lsb * '"')
	backslash := x ^ (lsb * '\\')
	special := (x - lsb*0x20) &^ x
	special |= (quote - lsb) &^ quote
	special |= (backslash - lsb) &^ backslash
	return (special|x)&msb == 0
}

// load64 reads the 8 bytes of s at i, little-endian; the compiler turns it
// into one load.
func load64[T ~string | ~[]byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// appendEscapedASCII appends the JSON escape of the ASCII byte c.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return appendUnicodeEscape(dst, rune(c))
}

// appendUnicodeEscape appends \uXXXX for a rune of the Basic Multilingual
// Plane.
func appendUnicodeEscape(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// quoteTail turns the bytes of dst from start on, a JSON text just written,
// into one JSON string holding that text: the double encoding the server
// uses for `data`. It needs no scratch buffer: the quoted copy is appended
// after the text and moved down over it.
func quoteTail(dst []byte, start int) []byte {
	end := len(dst)
	// If append grows dst, the text is still read from the old array;
	// otherwise it is read from dst[start:end] while writes go past end.
	dst = appendQuoted(dst, dst[start:end])
	n := copy(dst[start:], dst[end:])
	return dst[:start+n]
}

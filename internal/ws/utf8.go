package ws

import "unicode/utf8"

// UTF-8 validation that survives fragment boundaries (RFC 6455 8.1 and
// 5.6: a text message is UTF-8 as a whole, and an endpoint should fail it
// as soon as the bytes received so far cannot begin a valid message).
//
// The states of a small DFA over RFC 3629's well-formed byte sequences. The
// state is what State carries between fragments, so it fits in a byte.
const (
	utf8Accept  uint8 = iota // between code points
	utf8Need1                // one more continuation byte 80..BF
	utf8Need2                // two more continuation bytes
	utf8Need3                // three more continuation bytes
	utf8AfterE0              // after E0: A0..BF (no overlong), then one more
	utf8AfterED              // after ED: 80..9F (no surrogates), then one more
	utf8AfterF0              // after F0: 90..BF (no overlong), then two more
	utf8AfterF4              // after F4: 80..8F (nothing past U+10FFFF), then two more
	utf8Reject               // no continuation can make the text valid; sticky
)

// utf8Next moves the DFA over one byte.
func utf8Next(s uint8, c byte) uint8 {
	switch s {
	case utf8Accept:
		return utf8Lead(c)
	case utf8Need1, utf8Need2, utf8Need3:
		return utf8Within(c, 0x80, 0xBF, s-1)
	case utf8AfterE0:
		return utf8Within(c, 0xA0, 0xBF, utf8Need1)
	case utf8AfterED:
		return utf8Within(c, 0x80, 0x9F, utf8Need1)
	case utf8AfterF0:
		return utf8Within(c, 0x90, 0xBF, utf8Need2)
	case utf8AfterF4:
		return utf8Within(c, 0x80, 0x8F, utf8Need2)
	}
	return utf8Reject
}

// utf8Within returns next if lo <= c <= hi, else utf8Reject.
func utf8Within(c, lo, hi byte, next uint8) uint8 {
	if c < lo || c > hi {
		return utf8Reject
	}
	return next
}

// utf8Lead classifies the first byte of a code point (RFC 3629 section 4).
func utf8Lead(c byte) uint8 {
	switch {
	case c < 0x80:
		return utf8Accept
	case c < 0xC2: // a stray continuation byte, or C0/C1 (always overlong)
		return utf8Reject
	case c < 0xE0:
		return utf8Need1
	case c == 0xE0:
		return utf8AfterE0
	case c == 0xED:
		return utf8AfterED
	case c < 0xF0:
		return utf8Need2
	case c == 0xF0:
		return utf8AfterF0
	case c < 0xF4:
		return utf8Need3
	case c == 0xF4:
		return utf8AfterF4
	}
	return utf8Reject // F5..FF never appear in UTF-8
}

// utf8Continue validates p as the next piece of a text whose DFA state is
// s and returns the new state: utf8Accept if the text so far is complete,
// utf8Reject as soon as it cannot be valid, or a state waiting for the rest
// of a code point. The DFA runs only over the code points that straddle
// the edges of p; the middle goes to the standard library's validator,
// which is many times faster.
func utf8Continue(s uint8, p []byte) uint8 {
	for len(p) > 0 && s != utf8Accept && s != utf8Reject {
		s, p = utf8Next(s, p[0]), p[1:]
	}
	if s != utf8Accept {
		return s
	}
	cut := utf8TailStart(p)
	if !utf8.Valid(p[:cut]) {
		return utf8Reject
	}
	for _, c := range p[cut:] {
		s = utf8Next(s, c)
	}
	return s
}

// utf8TailStart finds the lead byte of a code point that may be cut off at
// the end of p (a code point spans at most 4 bytes, so it looks back 3), or
// returns len(p) when p ends on ASCII or after 3 continuation bytes.
func utf8TailStart(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-3; i-- {
		if p[i] < 0x80 {
			break
		}
		if p[i] >= 0xC0 {
			return i
		}
	}
	return len(p)
}

package ws

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// kosme is "κόσμε", the Greek word the UTF-8 test cases are built around.
const kosme = "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5"

// helloUTF8 is the multi-byte message of cases 6.2.x.
const helloUTF8 = "Hello-µ@ßöäüàá-UTF-8!!"

func oneBytePieces(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

// fragmentsOf sends parts as one text message, one fragment per part.
func fragmentsOf(parts ...string) []([]byte) {
	out := []([]byte){rawFrame(len(parts) == 1, 0, OpText, parts[0])}
	for i, p := range parts[1:] {
		out = append(out, cont(p, i == len(parts)-2))
	}
	return out
}

func TestAutobahn6UTF8Framing(t *testing.T) {
	invalid := kosme + "\xed\xa0\x80edited"
	cases := []abCase{
		{id: "6.1.1", in: perFrame(text("")), want: []string{"text:"}},
		{id: "6.1.2", in: perFrame(fragmentsOf("", "", "")...), want: []string{"text:"}},
		{id: "6.1.3", in: perFrame(fragmentsOf("", "middle frame payload", "")...), want: []string{"text:middle frame payload"}},
		{id: "6.2.1", in: perFrame(text(helloUTF8)), want: []string{"text:" + helloUTF8}},
		{id: "6.2.2", in: perFrame(fragmentsOf(helloUTF8[:8], helloUTF8[8:])...), want: []string{"text:" + helloUTF8}},
		{id: "6.2.3", in: perFrame(fragmentsOf(oneBytePieces(helloUTF8)...)...), want: []string{"text:" + helloUTF8}},
		{id: "6.2.4", in: perFrame(fragmentsOf(oneBytePieces(kosme)...)...), want: []string{"text:" + kosme}},
		{id: "6.3.1", in: perFrame(text(invalid)), code: CloseInvalidPayload},
		// One octet per fragment: fail on the fragment holding \xa0, the
		// 13th, since \xed\xa0 can only begin a surrogate.
		{id: "6.3.2", in: perFrame(fragmentsOf(oneBytePieces(invalid)...)...), code: CloseInvalidPayload, failAt: 13},
	}
	// 6.4.x: U+110000 in the middle; fail on the second fragment, before
	// the third is sent (fail fast).
	p := kosme + "\xf4\x90\x80\x80" + "edited"
	cases = append(cases,
		abCase{id: "6.4.1", in: perFrame(fragmentsOf(p[:11], p[11:15], p[15:])...), code: CloseInvalidPayload, failAt: 2},
		abCase{id: "6.4.2", in: perFrame(fragmentsOf(p[:12], p[12:13], p[13:])...), code: CloseInvalidPayload, failAt: 2},
		// 6.4.3/6.4.4 chop one frame: frames are judged when complete, so
		// the failure comes with the last chop (Autobahn: NON-STRICT).
		abCase{id: "6.4.3", in: chopFrame(text(p), 11, 15), code: CloseInvalidPayload, failAt: 3},
		abCase{id: "6.4.4", in: chopFrame(text(p), 12, 13), code: CloseInvalidPayload, failAt: 3},
	)
	runAutobahn(t, cases)
}

// chopFrame splits an encoded frame into three chops at payload offsets a
// and b (the header travels with the first).
func chopFrame(frame []byte, a, b int) [][]byte {
	hlen := len(frame) - 26 // the 6.4.x payload is 26 bytes
	return [][]byte{frame[:hlen+a], frame[hlen+a : hlen+b], frame[hlen+b:]}
}

// utf8Sequences are the Autobahn 6.5-6.23 groups (after Markus Kuhn's
// UTF-8 decoder stress test): each group's strings and whether each is
// valid UTF-8. Group 6.6 (the prefixes of kosme) is generated.
func utf8Sequences() [][]utf8Case {
	v, x := true, false
	groups := [][]utf8Case{
		{{v, "hello$world"}, {v, "hello\xc2\xa2world"}, {v, "hello\xe2\x82\xacworld"}, {v, "hello\xf0\xa4\xad\xa2world"}, {v, kosme}},
		kosmePrefixes(),
		{{v, "\x00"}, {v, "\xc2\x80"}, {v, "\xe0\xa0\x80"}, {v, "\xf0\x90\x80\x80"}},
		{{x, "\xf8\x88\x80\x80\x80"}, {x, "\xfc\x84\x80\x80\x80\x80"}},
		{{v, "\x7f"}, {v, "\xdf\xbf"}, {v, "\xef\xbf\xbf"}, {v, "\xf4\x8f\xbf\xbf"}},
		{{x, "\xf7\xbf\xbf\xbf"}, {x, "\xfb\xbf\xbf\xbf\xbf"}, {x, "\xfd\xbf\xbf\xbf\xbf\xbf"}},
		{{v, "\xed\x9f\xbf"}, {v, "\xee\x80\x80"}, {v, "\xef\xbf\xbd"}, {v, "\xf4\x8f\xbf\xbf"}, {x, "\xf4\x90\x80\x80"}},
		unexpectedContinuations(),
		lonelyStarts(),
		missingLast(),
		{{x, concatMissingLast()}},
		{{x, "\xfe"}, {x, "\xff"}, {x, "\xfe\xfe\xff\xff"}},
		{{x, "\xc0\xaf"}, {x, "\xe0\x80\xaf"}, {x, "\xf0\x80\x80\xaf"}, {x, "\xf8\x80\x80\x80\xaf"}, {x, "\xfc\x80\x80\x80\x80\xaf"}},
		{{x, "\xc1\xbf"}, {x, "\xe0\x9f\xbf"}, {x, "\xf0\x8f\xbf\xbf"}, {x, "\xf8\x87\xbf\xbf\xbf"}, {x, "\xfc\x83\xbf\xbf\xbf\xbf"}},
		{{x, "\xc0\x80"}, {x, "\xe0\x80\x80"}, {x, "\xf0\x80\x80\x80"}, {x, "\xf8\x80\x80\x80\x80"}, {x, "\xfc\x80\x80\x80\x80\x80"}},
		{{x, "\xed\xa0\x80"}, {x, "\xed\xad\xbf"}, {x, "\xed\xae\x80"}, {x, "\xed\xaf\xbf"}, {x, "\xed\xb0\x80"}, {x, "\xed\xbe\x80"}, {x, "\xed\xbf\xbf"}},
		pairedSurrogates(),
		nonCharacters(),
		{{v, "\xef\xbf\xb9"}, {v, "\xef\xbf\xba"}, {v, "\xef\xbf\xbb"}, {v, "\xef\xbf\xbc"}, {v, "\xef\xbf\xbd"}, {v, "\xef\xbf\xbe"}, {v, "\xef\xbf\xbf"}},
	}
	return groups
}

type utf8Case struct {
	valid bool
	s     string
}

func kosmePrefixes() []utf8Case {
	var out []utf8Case
	for i := 1; i <= len(kosme); i++ {
		out = append(out, utf8Case{utf8.ValidString(kosme[:i]), kosme[:i]})
	}
	return out
}

func unexpectedContinuations() []utf8Case {
	out := []utf8Case{{false, "\x80"}, {false, "\xbf"}}
	for n := 2; n <= 6; n++ {
		out = append(out, utf8Case{false, strings.Repeat("\x80\xbf", 3)[:n]})
	}
	var all []byte
	for c := 0x80; c < 0xbf; c++ {
		all = append(all, byte(c))
	}
	return append(out, utf8Case{false, string(all)})
}

func lonelyStarts() []utf8Case {
	var out []utf8Case
	for _, r := range [][2]int{{0xc0, 0xdf}, {0xe0, 0xef}, {0xf0, 0xf7}, {0xf8, 0xfb}, {0xfc, 0xfd}} {
		var b []byte
		for c := r[0]; c < r[1]; c++ {
			b = append(b, byte(c), ' ')
		}
		out = append(out, utf8Case{false, string(b)})
	}
	return out
}

var missingLastSeqs = []string{"\xc0", "\xe0\x80", "\xf0\x80\x80", "\xf8\x80\x80\x80", "\xfc\x80\x80\x80\x80",
	"\xdf", "\xef\xbf", "\xf7\xbf\xbf", "\xfb\xbf\xbf\xbf", "\xfd\xbf\xbf\xbf\xbf"}

func missingLast() []utf8Case {
	var out []utf8Case
	for _, s := range missingLastSeqs {
		out = append(out, utf8Case{false, s})
	}
	return out
}

func concatMissingLast() string { return strings.Join(missingLastSeqs, "") }

func pairedSurrogates() []utf8Case {
	var out []utf8Case
	for _, hi := range []string{"\xed\xa0\x80", "\xed\xad\xbf", "\xed\xae\x80", "\xed\xaf\xbf"} {
		for _, lo := range []string{"\xed\xb0\x80", "\xed\xbf\xbf"} {
			out = append(out, utf8Case{false, hi + lo})
		}
	}
	return out
}

// nonCharacters are U+FFFE, U+FFFF and the last two code points of each
// supplementary plane: not characters, but valid UTF-8.
func nonCharacters() []utf8Case {
	out := []utf8Case{{true, "\xef\xbf\xbe"}, {true, "\xef\xbf\xbf"}}
	for _, b1 := range []byte{0xf0, 0xf1, 0xf2, 0xf3, 0xf4} {
		for _, b2 := range []byte{0x8f, 0x9f, 0xaf, 0xbf} {
			if (b1 == 0xf4 && b2 != 0x8f) || (b1 == 0xf0 && b2 == 0x8f) {
				continue // past U+10FFFF, or overlong
			}
			for _, b4 := range []byte{0xbe, 0xbf} {
				out = append(out, utf8Case{true, string([]byte{b1, b2, 0xbf, b4})})
			}
		}
	}
	return out
}

// TestAutobahn6UTF8Sequences sends each 6.5-6.23 string as one text frame,
// and again one octet per fragment: the connection must fail on the very
// octet after which no valid text can follow (fail fast), or deliver the
// message whole.
func TestAutobahn6UTF8Sequences(t *testing.T) {
	var cases []abCase
	for g, group := range utf8Sequences() {
		for i, c := range group {
			id := fmt.Sprintf("6.%d.%d", g+5, i+1)
			whole := abCase{id: id, in: perFrame(text(c.s)), want: []string{"text:" + c.s}}
			pieces := abCase{id: id + "/octets", in: perFrame(fragmentsOf(oneBytePieces(c.s)...)...), want: whole.want}
			if !c.valid {
				whole.want, whole.code = nil, CloseInvalidPayload
				pieces.want, pieces.code, pieces.failAt = nil, CloseInvalidPayload, impossibleAt(c.s)
			}
			cases = append(cases, whole, pieces)
		}
	}
	runAutobahn(t, cases)
}

// impossibleAt returns the 1-based index of the byte of invalid s after
// which no continuation can make it UTF-8, or len(s) when only its end
// is wrong (a truncated sequence). It is an oracle for the DFA built only
// on utf8.Valid.
func impossibleAt(s string) int {
	for i := 1; i <= len(s); i++ {
		if !canContinue(s[:i]) {
			return i
		}
	}
	return len(s)
}

// canContinue reports whether some bytes appended to p give valid UTF-8:
// p must be valid up to a last, unfinished code point of at most 3 bytes
// that some completion turns valid.
func canContinue(p string) bool {
	if utf8.ValidString(p) {
		return true
	}
	for k := 1; k <= 3 && k <= len(p); k++ {
		head, tail := p[:len(p)-k], p[len(p)-k:]
		if utf8.ValidString(head) && completable(tail) {
			return true
		}
	}
	return false
}

// completable reports whether tail is the start of an encoded code point,
// trying second bytes at the edges of every range RFC 3629 allows after a
// lead byte (each range holds one of them), then continuation bytes.
func completable(tail string) bool {
	seconds := []string{""}
	if len(tail) == 1 {
		seconds = []string{"\x80", "\x8f", "\x90", "\x9f", "\xa0", "\xbf"}
	}
	for _, s := range seconds {
		for pad := ""; len(tail)+len(s)+len(pad) <= 4; pad += "\x80" {
			cand := tail + s + pad
			if r, n := utf8.DecodeRuneInString(cand); r != utf8.RuneError && n == len(cand) {
				return true
			}
		}
	}
	return false
}

package ws

import (
	"testing"
	"unicode/utf8"
)

// checkUTF8Splits checks utf8Continue against utf8.Valid on s cut at
// every point, and that it rejects exactly when no continuation can help.
func checkUTF8Splits(t *testing.T, s []byte) {
	t.Helper()
	valid, possible := utf8.Valid(s), canContinue(string(s))
	for i := 0; i <= len(s); i++ {
		st := utf8Continue(utf8Continue(utf8Accept, s[:i]), s[i:])
		if (st == utf8Accept) != valid {
			t.Fatalf("% x split at %d: state %d, utf8.Valid %v", s, i, st, valid)
		}
		if (st == utf8Reject) == possible {
			t.Fatalf("% x split at %d: state %d, but canContinue = %v", s, i, st, possible)
		}
	}
}

// TestUTF8ContinueShort tries every 1- and 2-byte string, and every 3- and
// 4-byte string whose later bytes sit at the edges of the ranges that the
// DFA distinguishes.
func TestUTF8ContinueShort(t *testing.T) {
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xf4, 0xff}
	for a := range 256 {
		checkUTF8Splits(t, []byte{byte(a)})
		for b := range 256 {
			checkUTF8Splits(t, []byte{byte(a), byte(b)})
			for _, c := range edges {
				checkUTF8Splits(t, []byte{byte(a), byte(b), c})
			}
		}
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					checkUTF8Splits(t, []byte{byte(a), b, c, d})
				}
			}
		}
	}
}

func TestUTF8ContinueText(t *testing.T) {
	for _, s := range []string{"", "plain ascii", helloUTF8, kosme, kosme + "\xed\xa0\x80edited",
		`{"event":"pusher:subscribe","data":{"channel":"présence-çhat-😀"}}`, "😀😀😀😀", "a\xf0\x9f\x98"} {
		checkUTF8Splits(t, []byte(s))
	}
}

// FuzzUTF8 checks the incremental validator against the standard library
// with the input cut into two fragments anywhere.
func FuzzUTF8(f *testing.F) {
	for _, s := range []string{helloUTF8, kosme, "\xf4\x90\x80\x80", "\xed\xa0\x80", "ab\xe2\x82", "😀x"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, s []byte, cut uint8) {
		i := int(cut) % (len(s) + 1)
		st := utf8Continue(utf8Continue(utf8Accept, s[:i]), s[i:])
		if (st == utf8Accept) != utf8.Valid(s) {
			t.Fatalf("% x split at %d: state %d, utf8.Valid %v", s, i, st, utf8.Valid(s))
		}
		if len(s) <= 64 && (st == utf8Reject) == canContinue(string(s)) {
			t.Fatalf("% x: state %d disagrees with canContinue", s, st)
		}
	})
}

package ws

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestDecodeRules covers the RFC 6455 rules that the Autobahn tables do
// not reach (a test client always masks, and never lies about lengths).
func TestDecodeRules(t *testing.T) {
	unmasked := AppendFrame(nil, OpText, []byte("hi"))
	topBit := []byte{0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4}
	nonMinimal16 := append([]byte{0x81, 0x80 | 126, 0, 2, 0, 0, 0, 0}, "hi"...)
	nonMinimal64 := append([]byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0}, "hi"...)
	hugeHeader := appendHeader(nil, header{fin: true, op: OpText, masked: true, length: 1 << 40})
	tests := []abCase{
		{id: "unmasked text", in: perFrame(unmasked), code: CloseProtocolError, failAt: 1},
		{id: "unmasked ping", in: perFrame(AppendFrame(nil, OpPing, nil)), code: CloseProtocolError},
		{id: "length top bit", in: perFrame(topBit), code: CloseProtocolError},
		{id: "non-minimal 16-bit length", in: perFrame(nonMinimal16), want: []string{"text:hi"}},
		{id: "non-minimal 64-bit length", in: perFrame(nonMinimal64), want: []string{"text:hi"}},
		{id: "1009 from the header alone", in: perFrame(hugeHeader), max: 1 << 20, code: CloseTooBig, failAt: 1},
		{id: "no limit", in: perFrame(text(stars(300))), max: -1, want: []string{"text:" + stars(300)}},
		{id: "binary fragment", in: perFrame(rawFrame(false, 0, OpBinary, "ab")), code: CloseUnsupportedData},
		{id: "binary inside text", in: perFrame(textStart("a"), binFrame("b")), code: CloseProtocolError},
		{id: "limit across fragments", in: perFrame(textStart(stars(6)), cont(stars(5), true)), max: 10,
			code: CloseTooBig, failAt: 2},
		{id: "at limit across fragments", in: perFrame(textStart(stars(6)), cont(stars(4), true)), max: 10,
			want: []string{"text:" + stars(10)}},
		{id: "control frames do not count", in: perFrame(textStart(stars(10)), ping(stars(100)), cont("", true)), max: 10,
			want: []string{"ping:" + stars(100), "text:" + stars(10)}},
		{id: "sequence cut across fragments", in: perFrame(fragmentsOf("a\xe2", "\x82", "\xac")...),
			want: []string{"text:a\u20ac"}},
		{id: "sequence left open at FIN", in: perFrame(fragmentsOf("a\xe2", "\x82")...), code: CloseInvalidPayload},
		{id: "pusher 4201 close", in: perFrame(closeFrame(4201, "pong")), want: []string{"close:4201:pong"}},
		{id: "1012 close", in: perFrame(closeFrame(1012, "")), want: []string{"close:1012:"}},
		{id: "1015 close", in: perFrame(closeFrame(1015, "")), code: CloseProtocolError},
	}
	runAutobahn(t, tests)
}

// splitCorpus is a set of client byte streams, valid and not, for the
// split-invariance checks.
func splitCorpus() [][]byte {
	subscribe := `{"event":"pusher:subscribe","data":{"auth":"","channel":"my-channel"}}`
	return [][]byte{
		bytes.Join([][]byte{text(subscribe), ping(""), text(`{"event":"pusher:ping","data":{}}`)}, nil),
		bytes.Join(fragmentsOf(kosme[:3], kosme[3:7], kosme[7:]), nil),
		bytes.Join([][]byte{textStart("frag"), ping("p"), pong("q"), cont("ment", true), closeFrame(1000, "bye")}, nil),
		bytes.Join([][]byte{text(stars(200)), text(stars(70000)), text("")}, nil),
		bytes.Join(fragmentsOf(kosme+"\xf4\x90\x80\x80edited", "x"), nil),
		bytes.Join([][]byte{text("ok"), rawFrame(true, 2, OpText, "rsv")}, nil),
		bytes.Join([][]byte{text("ok"), binFrame("b")}, nil),
		bytes.Join([][]byte{closeFrame(999, "")}, nil),
		text(stars(5000)),
	}
}

// TestDecodeSplitInvariance: however the bytes arrive (all at once, byte by
// byte, or in random pieces), Decode reports the same messages, the same
// failure and the same consumption.
func TestDecodeSplitInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i, stream := range splitCorpus() {
		want := feed(t, [][]byte{stream}, 1<<17)
		for j, chunks := range [][][]byte{chops(1, stream), randomSplits(r, stream), randomSplits(r, stream)} {
			got := feed(t, chunks, 1<<17)
			if !sameOutcome(got, want) {
				t.Errorf("stream %d, split %d: %+v, all at once: %+v", i, j, got, want)
			}
		}
	}
}

// randomSplits cuts b into pieces of random sizes, mostly small.
func randomSplits(r *rand.Rand, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := min(len(b), 1+r.IntN(1+r.IntN(64)))
		out, b = append(out, b[:n]), b[n:]
	}
	return out
}

func sameOutcome(a, b outcome) bool {
	return sameEvents(a.events, b.events) && a.code == b.code && a.consumed == b.consumed
}

// TestDecodeFragmentBuffer follows the pooled buffer: taken with the first
// fragment, kept between calls, returned with the last or on failure.
func TestDecodeFragmentBuffer(t *testing.T) {
	var (
		st   State
		frag []byte
		rec  recorder
	)
	decode := func(b []byte) error {
		_, err := Decode(&st, b, 1<<10, &frag, &rec)
		return err
	}
	if decode(textStart("hello ")); frag == nil || st.op != OpText {
		t.Fatalf("after a first fragment: frag %v, state %+v", frag != nil, st)
	}
	if decode(ping("")); frag == nil {
		t.Fatal("a control frame dropped the message in progress")
	}
	if decode(cont("world", true)); frag != nil || st != (State{}) {
		t.Fatalf("after the last fragment: frag %v, state %+v", frag != nil, st)
	}
	if len(rec.events) != 2 || rec.events[1] != "text:hello world" {
		t.Fatalf("events %q", rec.events)
	}
	decode(textStart("abc"))
	if err := decode(cont("\xff", true)); err == nil || frag != nil || st != (State{}) {
		t.Fatalf("after a failing fragment: err %v, frag %v, state %+v", err, frag != nil, st)
	}
	decode(textStart("abc"))
	if Discard(&st, &frag); frag != nil || st != (State{}) {
		t.Fatalf("after Discard: frag %v, state %+v", frag != nil, st)
	}
}

// stopper stops decoding at its first text message.
type stopper struct{ recorder }

func (s *stopper) OnText(p []byte) bool { s.recorder.OnText(p); return false }

func TestDecodeHandlerStops(t *testing.T) {
	first, second := text("one"), text("two")
	in := append(bytes.Clone(first), second...)
	var (
		st   State
		frag []byte
		h    stopper
	)
	n, err := Decode(&st, in, 100, &frag, &h)
	if err != nil || n != len(first) || len(h.events) != 1 {
		t.Fatalf("Decode = %d, %v with events %q; want %d, nil, one event", n, err, h.events, len(first))
	}
}

func TestDecodePartialHeaderLeavesInput(t *testing.T) {
	frame := text(stars(300))
	for i := range 8 {
		var (
			st   State
			frag []byte
			rec  recorder
		)
		if n, err := Decode(&st, frame[:i], 1000, &frag, &rec); n != 0 || err != nil {
			t.Fatalf("Decode of %d header bytes = %d, %v", i, n, err)
		}
	}
}

// nopHandler accepts everything and keeps nothing.
type nopHandler struct{}

func (nopHandler) OnText([]byte) bool             { return true }
func (nopHandler) OnPing([]byte) bool             { return true }
func (nopHandler) OnPong([]byte) bool             { return true }
func (nopHandler) OnClose(CloseCode, []byte) bool { return false }

func TestStateIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(State{}); size != 3 {
		t.Errorf("State is %d bytes, want 3", size)
	}
}

func TestDecodeNoAlloc(t *testing.T) {
	frame := text(`{"event":"pusher:ping","data":{}}`)
	buf := make([]byte, len(frame))
	var (
		st   State
		frag []byte
		h    Handler = nopHandler{}
	)
	allocs := testing.AllocsPerRun(1000, func() {
		copy(buf, frame)
		if n, err := Decode(&st, buf, 1<<16, &frag, h); n != len(frame) || err != nil {
			t.Fatalf("Decode = %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("Decode of a small text frame allocates %v times", allocs)
	}
}

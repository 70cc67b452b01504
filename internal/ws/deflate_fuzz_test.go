package ws

import (
	"strings"
	"testing"
)

// FuzzAcceptDeflate checks that the Sec-WebSocket-Extensions parser never
// panics, accepts only headers that offer permessage-deflate, and is not
// confused by another extension listed after an accepted offer. Seeds are
// the headers browsers and libraries send.
func FuzzAcceptDeflate(f *testing.F) {
	for _, h := range []string{
		"permessage-deflate; client_max_window_bits", // Chromium, Node's ws
		"permessage-deflate",                         // Firefox
		"permessage-deflate; client_no_context_takeover; server_no_context_takeover",
		"permessage-deflate; server_max_window_bits=10, permessage-deflate",
		`permessage-deflate; client_max_window_bits="12"`,
		"x-webkit-deflate-frame",
		"permessage-deflate;;",
	} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		ok := AcceptDeflate([]string{h})
		if ok && !strings.Contains(strings.ToLower(h), deflateName) {
			t.Fatalf("accepted %q, which offers no %s", h, deflateName)
		}
		if ok && !AcceptDeflate([]string{h + ", x-other; a=1"}) {
			t.Fatalf("accepted %q but not with another extension after it", h)
		}
	})
}

// FuzzInflate feeds compressed client messages to the decoder of a
// connection that negotiated permessage-deflate, with a 4 KB limit: it
// never panics, never delivers a message over the limit or one that is not
// UTF-8, fails only with 1007 or 1009, and gives the same result when the
// frame arrives one byte at a time or the message in two fragments. Seeds
// are real pusher-js messages compressed as a browser does, and a
// decompression bomb.
func FuzzInflate(f *testing.F) {
	for _, m := range []string{
		`{"event":"pusher:subscribe","data":{"auth":"278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4","channel":"private-foobar"}}`,
		`{"event":"pusher:ping","data":{}}`,
		event,
		strings.Repeat("\x00", 1<<16),
	} {
		f.Add([]byte(clientDeflate(f, m)), uint16(7))
	}
	f.Add([]byte("\xff\xff"), uint16(1))
	f.Fuzz(func(t *testing.T, z []byte, split uint16) {
		frame := rawFrame(true, 4, OpText, string(z))
		got := feedFrom(t, DeflateState(), [][]byte{frame}, 4096)
		switch got.code {
		case 0, CloseInvalidPayload, CloseTooBig:
		default:
			t.Fatalf("close %d", got.code)
		}
		for _, e := range got.events {
			if len(e) > len("text:")+4096 {
				t.Fatalf("delivered %d bytes over a 4096-byte limit", len(e))
			}
		}
		if again := feedFrom(t, DeflateState(), octets(frame), 4096); !sameOutcome(again, got) {
			t.Fatalf("byte by byte: %+v, at once: %+v", again, got)
		}
		i := int(split) % (len(z) + 1)
		frags := [][]byte{rawFrame(false, 4, OpText, string(z[:i])), cont(string(z[i:]), true)}
		if two := feedFrom(t, DeflateState(), perFrame(frags...), 4096); !sameEvents(two.events, got.events) || two.code != got.code {
			t.Fatalf("in two fragments: %+v, whole: %+v", two, got)
		}
	})
}

package hub

import (
	"bytes"
	"sync"
	"testing"
)

// chooser is a subscriber that negotiated compression or not.
type chooser struct {
	deflate bool
	got     [][]byte
}

func (c *chooser) SocketSeq() uint64   { return 0 }
func (c *chooser) Deliver(f *Frame)    { c.got = append(c.got, f.For(c.deflate)) }
func (c *chooser) Terminate()          {}
func (c *chooser) Moved(*Channel, int) {}

// TestFrameCompressedOnce publishes to subscribers on two shards, some
// with compression: the frame is compressed once for all of them, and not
// at all when none of them negotiated it.
func TestFrameCompressedOnce(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	compress := func(p []byte) []byte {
		mu.Lock()
		calls++
		mu.Unlock()
		return append([]byte("z:"), p...)
	}
	h := New(Config{Shards: 2, Encode: rawEncode, Compress: compress}, 7)
	h.SetShard(0, inline{h})
	h.SetShard(1, inline{h})
	subs := []*chooser{{deflate: true}, {deflate: false}, {deflate: true}, {deflate: true}}
	ch := h.Acquire("app", "c")
	for i, s := range subs {
		h.Attach(ch, i%2, s)
	}
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e", Data: "1"})
	if calls != 1 {
		t.Fatalf("one publish compressed %d times", calls)
	}
	for _, s := range subs {
		want := "e:1"
		if s.deflate {
			want = "z:e:1"
		}
		if len(s.got) != 1 || !bytes.Equal(s.got[0], []byte(want)) {
			t.Fatalf("deflate=%v got %q, want %q", s.deflate, s.got, want)
		}
	}
	plain := &chooser{}
	h.Attach(h.Acquire("app", "quiet"), 0, plain)
	h.Publish("app", Publication{Channels: []string{"quiet"}, Event: "e", Data: "2"})
	if calls != 1 || string(plain.got[0]) != "e:2" {
		t.Fatalf("a publish with no compressing subscriber compressed (%d calls) or sent %q", calls, plain.got)
	}
}

// TestFrameKeepsPlainWhenNotSmaller: a compressor's nil answer (not
// smaller) sends the plain frame to everyone.
func TestFrameKeepsPlainWhenNotSmaller(t *testing.T) {
	f := NewFrame([]byte("p"), func([]byte) []byte { return nil })
	if string(f.For(true)) != "p" || string(f.For(false)) != "p" {
		t.Fatal("no plain frame when compression gave nothing")
	}
}

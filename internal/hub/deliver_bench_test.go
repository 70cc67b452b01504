package hub

import "testing"

// BenchmarkDeliver is the hub's work for one message from the broker to a
// channel with one local subscriber: lookup, encode, observe, post.
func BenchmarkDeliver(b *testing.B) {
	h := newTestHub(1)
	ch := h.Acquire("app", "news")
	s := newSub(1)
	s.join(h, ch)
	m := &Message{App: "app", Channel: "news", Event: "e", Data: `{"n":1}`}
	b.ReportAllocs()
	for b.Loop() {
		h.Deliver(m)
		s.got = s.got[:0]
	}
}

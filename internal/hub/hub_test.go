package hub

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// inline is a shard that flushes deliveries at once, on the caller's goroutine.
type inline struct{ h *Hub }

func (s inline) Post(d Delivery) { s.h.Flush(d) }
func (s inline) Do(f func())     { f() }

// sub records what the hub delivered to it and where it sits.
type sub struct {
	seq        uint64
	got        [][]byte
	terminated bool
	index      map[*Channel]int
}

func (s *sub) SocketSeq() uint64            { return s.seq }
func (s *sub) Deliver(f *Frame)             { s.got = append(s.got, f.Plain()) }
func (s *sub) Terminate()                   { s.terminated = true }
func (s *sub) Moved(ch *Channel, i int)     { s.index[ch] = i }
func newSub(seq uint64) *sub                { return &sub{seq: seq, index: map[*Channel]int{}} }
func rawEncode(m *Message) []byte           { return []byte(m.Event + ":" + m.Data) }
func (s *sub) join(h *Hub, ch *Channel) int { i := h.Attach(ch, 0, s); s.index[ch] = i; return i }

func newTestHub(shards int) *Hub {
	h := New(Config{Shards: shards, Encode: rawEncode}, 7)
	for i := 0; i < shards; i++ {
		h.SetShard(i, inline{h})
	}
	return h
}

func TestPublishExcludesSocket(t *testing.T) {
	h := newTestHub(1)
	a, b := newSub(1), newSub(2)
	ch := h.Acquire("app", "news")
	a.join(h, ch)
	h.Acquire("app", "news")
	b.join(h, ch)
	if err := h.Publish("app", Publication{Channels: []string{"news"}, Event: "e", Data: "1", SocketID: h.SocketID(1)}); err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 0 || len(b.got) != 1 || string(b.got[0]) != "e:1" {
		t.Fatalf("a got %q, b got %q; want only b to get e:1", a.got, b.got)
	}
}

func TestForeignSocketIDIsNotExcluded(t *testing.T) {
	h := newTestHub(1)
	a := newSub(1)
	a.join(h, h.Acquire("app", "c"))
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e", SocketID: "8.1"})
	if len(a.got) != 1 {
		t.Fatalf("a socket_id of another node excluded a local connection")
	}
}

func TestDetachMovesLast(t *testing.T) {
	h := newTestHub(1)
	ch := h.Acquire("app", "c")
	subs := []*sub{newSub(1), newSub(2), newSub(3)}
	for _, s := range subs {
		s.join(h, ch)
	}
	h.Detach(ch, 0, subs[0].index[ch])
	if subs[2].index[ch] != 0 {
		t.Fatalf("last subscriber was not told its new index: %d", subs[2].index[ch])
	}
	h.Detach(ch, 0, subs[2].index[ch])
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e"})
	if len(subs[1].got) != 1 || len(subs[0].got)+len(subs[2].got) != 0 {
		t.Fatal("a detached subscriber still receives, or the remaining one does not")
	}
}

func TestReleaseRemovesChannel(t *testing.T) {
	h := newTestHub(2)
	ch := h.Acquire("app", "c")
	h.Acquire("app", "c")
	h.Release(ch)
	if got, _ := h.Channel(context.Background(), "app", "c"); !got.Occupied || got.SubscriptionCount != 1 {
		t.Fatalf("after one release: %+v", got)
	}
	h.Release(ch)
	if got, _ := h.Channels(context.Background(), "app", ""); len(got) != 0 {
		t.Fatalf("channel kept after its last release: %+v", got)
	}
	if ch2 := h.Acquire("app", "c"); ch2 == ch {
		t.Fatal("a removed channel object was reused")
	}
}

// published records what a hub publishes, and delivers it.
type published struct {
	h    *Hub
	msgs []Message
}

func (p *published) Publish(m *Message) error {
	p.msgs = append(p.msgs, *m)
	p.h.Deliver(m)
	return nil
}
func (p *published) Subscribe(_, _ string, ready func()) { ready() }
func (p *published) Unsubscribe(_, _ string)             {}

// take returns the events published since the last take.
func (p *published) take() []string {
	var out []string
	for _, m := range p.msgs {
		out = append(out, m.Event+" "+m.Data)
	}
	p.msgs = nil
	return out
}

// join makes user a member of ch and returns the error Join reported.
func join(h *Hub, ch *Channel, user string, max int) error {
	var got error
	h.Join(ch, 0, Member{ID: user, Info: `{"n":1}`}, max, "", func(err error) { got = err })
	return got
}

// TestPresenceFirstAndLast: member_added on a user's first connection,
// member_removed on its last.
func TestPresenceFirstAndLast(t *testing.T) {
	h := newTestHub(1)
	p := &published{h: h}
	h.SetBroker(p)
	ch := h.Acquire("app", "presence-room")
	added := func(u string) string {
		return `pusher_internal:member_added {"user_id":"` + u + `","user_info":{"n":1}}`
	}
	removed := func(u string) string { return `pusher_internal:member_removed {"user_id":"` + u + `"}` }
	steps := []struct {
		join bool
		user string
		want []string
	}{
		{true, "u1", []string{added("u1")}}, {true, "u1", nil}, {true, "u2", []string{added("u2")}},
		{false, "u1", nil}, {false, "u1", []string{removed("u1")}}, {false, "u2", []string{removed("u2")}}, {false, "u2", nil},
	}
	for i, s := range steps {
		if s.join {
			join(h, ch, s.user, 100)
		} else {
			h.Leave(ch, s.user)
		}
		if got := p.take(); !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%+v): published %q", i, s, got)
		}
	}
}

func TestPresenceLimit(t *testing.T) {
	h := newTestHub(1)
	ch := h.Acquire("app", "presence-x")
	for i := 0; i < 3; i++ {
		if err := join(h, ch, fmt.Sprint(i), 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := join(h, ch, "extra", 3); err != ErrChannelFull {
		t.Fatalf("4th member: err %v, want ErrChannelFull", err)
	}
	if err := join(h, ch, "1", 3); err != nil {
		t.Fatalf("another tab of a member counted against the limit: %v", err)
	}
}

func TestTerminateUser(t *testing.T) {
	h := newTestHub(1)
	a, b := newSub(1), newSub(2)
	a.join(h, h.Acquire("app", ServerToUserPrefix+"u1"))
	b.join(h, h.Acquire("app", ServerToUserPrefix+"u2"))
	h.TerminateUser("app", "u1")
	if !a.terminated || b.terminated {
		t.Fatalf("terminated: a=%v b=%v, want a only", a.terminated, b.terminated)
	}
}

func TestSocketIDRoundTrip(t *testing.T) {
	h := newTestHub(1)
	id, seq := h.NewSocketID()
	if h.localSeq(id) != seq || seq == 0 {
		t.Fatalf("socket id %q does not map back to %d", id, seq)
	}
	for _, bad := range []string{"", "7", "x.1", "7.x", "8.1"} {
		if h.localSeq(bad) != 0 {
			t.Errorf("localSeq(%q) != 0", bad)
		}
	}
}

type nop struct{ seq uint64 }

func (n *nop) SocketSeq() uint64   { return n.seq }
func (n *nop) Deliver(*Frame)      {}
func (n *nop) Terminate()          {}
func (n *nop) Moved(*Channel, int) {}

// BenchmarkFlush15k measures the hub's share of delivering one publish to
// 15,000 subscribers of one channel (the socket writes are not included).
func BenchmarkFlush15k(b *testing.B) {
	h := newTestHub(1)
	ch := h.Acquire("app", "big")
	for i := 0; i < 15000; i++ {
		h.Attach(ch, 0, &nop{seq: uint64(i + 1)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Publish("app", Publication{Channels: []string{"big"}, Event: "e", Data: "x"})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/15000, "ns/delivery")
}

// BenchmarkSubscriptionBytes reports the heap bytes one subscription costs
// the hub: 10,000 connections on 1,000 channels.
func BenchmarkSubscriptionBytes(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h := newTestHub(2)
		subs := make([]nop, 10000)
		for j := range subs {
			h.Attach(h.Acquire("app", fmt.Sprint("channel-", j%1000)), j%2, &subs[j])
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc-uint64(len(subs))*8)/10000, "B/subscription")
		runtime.KeepAlive(h)
	}
}

// BenchmarkPresenceMemberBytes reports the heap bytes one presence member
// costs: 100 channels of 100 members, each with a small user_info.
func BenchmarkPresenceMemberBytes(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h := newTestHub(1)
		for c := 0; c < 100; c++ {
			ch := h.Acquire("app", fmt.Sprint("presence-room-", c))
			for u := 0; u < 100; u++ {
				h.Join(ch, 0, Member{ID: fmt.Sprint("user-", u), Info: `{"name":"someone"}`}, 100, "", func(error) {})
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/10000, "B/member")
		runtime.KeepAlive(h)
	}
}

// BenchmarkChannelBytes reports the heap bytes a channel with a single
// subscriber costs, subscription included (private-user-123 style).
func BenchmarkChannelBytes(b *testing.B) {
	names := make([]string, 10000)
	for j := range names {
		names[j] = fmt.Sprint("private-user-", j)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h := newTestHub(3)
		subs := make([]nop, len(names))
		for j := range subs {
			h.Attach(h.Acquire("app", names[j]), j%2, &subs[j])
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc-uint64(len(subs))*8)/float64(len(names)), "B/channel")
		runtime.KeepAlive(h)
	}
}

func TestTotalsFollowAcquireAndRelease(t *testing.T) {
	h := newTestHub(1)
	a := h.Acquire("app", "a")
	h.Acquire("app", "a")
	b := h.Acquire("other", "b")
	if c, s := h.Totals(); c != 2 || s != 3 {
		t.Fatalf("totals %d channels, %d subscriptions; want 2, 3", c, s)
	}
	h.Release(a)
	h.Release(a)
	h.Release(b)
	if c, s := h.Totals(); c != 0 || s != 0 {
		t.Fatalf("totals %d, %d after releasing everything", c, s)
	}
}

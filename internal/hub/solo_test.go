package hub

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// TestSoloMovesIntoLists checks that a channel's first subscriber is kept
// inline, that a second one (on another shard) moves it into the lists
// without changing its index, and that each receives every event once.
func TestSoloMovesIntoLists(t *testing.T) {
	h := newTestHub(3)
	ch := h.Acquire("app", "private-user-1")
	a, b := newSub(1), newSub(2)
	if i := h.Attach(ch, 2, a); i != 0 || ch.solo() != 2 || ch.lists() != nil {
		t.Fatalf("first subscriber: index %d, solo shard %d, lists %v", i, ch.solo(), ch.lists())
	}
	h.Publish("app", Publication{Channels: []string{"private-user-1"}, Event: "e", Data: "1"})
	h.Acquire("app", "private-user-1")
	if i := h.Attach(ch, 1, b); i != 0 || ch.solo() != -1 || ch.lists() == nil {
		t.Fatalf("second subscriber: index %d, solo shard %d", i, ch.solo())
	}
	h.Publish("app", Publication{Channels: []string{"private-user-1"}, Event: "e", Data: "2"})
	if len(a.got) != 2 || len(b.got) != 1 {
		t.Fatalf("a got %q, b got %q; want 2 and 1 events", a.got, b.got)
	}
	h.Detach(ch, 2, 0)
	h.Publish("app", Publication{Channels: []string{"private-user-1"}, Event: "e", Data: "3"})
	if len(a.got) != 2 || len(b.got) != 2 {
		t.Fatalf("after a left: a got %d, b got %d events; want 2 and 2", len(a.got), len(b.got))
	}
}

// TestSoloDetach checks that the solo subscriber leaves, and that the next
// one on another shard takes its place inline.
func TestSoloDetach(t *testing.T) {
	h := newTestHub(2)
	ch := h.Acquire("app", "c")
	a, b := newSub(1), newSub(2)
	h.Attach(ch, 0, a)
	h.Detach(ch, 0, 0)
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e"})
	h.Attach(ch, 1, b)
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e"})
	if len(a.got) != 0 || len(b.got) != 1 || ch.solo() != 1 {
		t.Fatalf("a got %d, b got %d events (solo shard %d); want 0 and 1", len(a.got), len(b.got), ch.solo())
	}
}

// counter is a subscriber that counts deliveries; safe for a shard that
// flushes on other goroutines.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) SocketSeq() uint64   { return 0 }
func (c *counter) Deliver(*Frame)      { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *counter) Terminate()          {}
func (c *counter) Moved(*Channel, int) {}

// TestSoloRacesPublish publishes while other shards' goroutines join the
// channel one after another (moving the solo subscriber into the lists):
// the first subscriber, attached before any publish, receives each event
// exactly once. Run with -race, it also checks the form change's locking.
func TestSoloRacesPublish(t *testing.T) {
	for round := 0; round < 200; round++ {
		h := newTestHub(4)
		name := fmt.Sprint("private-user-", round)
		ch := h.Acquire("app", name)
		first := &counter{}
		h.Attach(ch, 0, first)
		var wg sync.WaitGroup
		for shard := 1; shard < 4; shard++ {
			wg.Go(func() { h.Attach(ch, shard, &counter{}) })
		}
		const events = 20
		for range events {
			h.Publish("app", Publication{Channels: []string{name}, Event: "e"})
		}
		wg.Wait()
		if first.n != events {
			t.Fatalf("round %d: the first subscriber got %d of %d events", round, first.n, events)
		}
	}
}

// posts is a shard that counts what is posted to it.
type posts struct{ n *int }

func (p posts) Post(Delivery) { *p.n++ }
func (p posts) Do(f func())   { f() }

// TestPostDuringMove publishes in the instant of a move out of the solo
// form, when the subscriber is in its shard's list and the solo bits still
// name the shard: the shard must be posted to once, not twice.
func TestPostDuringMove(t *testing.T) {
	h := newTestHub(2)
	var n int
	h.SetShard(1, posts{&n})
	ch := h.Acquire("app", "c")
	a := newSub(1)
	h.Attach(ch, 1, a)
	lists := make(shardLists, 2)
	lists[1].Store(&shardList{subs: []Subscriber{a}})
	ch.extra().lists.Store(&lists)
	h.Publish("app", Publication{Channels: []string{"c"}, Event: "e"})
	if n != 1 {
		t.Fatalf("one event was posted %d times to the moving subscriber's shard", n)
	}
}

// TestChannelFitsSizeClass guards the channel's size: past 64 bytes the
// allocator rounds it up to 80, which every single-subscriber channel pays.
func TestChannelFitsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Channel{}); n > 64 {
		t.Fatalf("a Channel is %d bytes, more than 64", n)
	}
}

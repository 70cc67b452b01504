package hub

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// ids returns the user ids of members.
func ids(members []Member) []string {
	var out []string
	for _, m := range members {
		out = append(out, m.ID)
	}
	return out
}

// TestViewFollowsDeliveredEvents: what a new subscriber of a presence
// channel is told is the members this node has told the others of: the
// store's list when the channel came here, then every member event
// delivered, including those delivered before the store answered.
func TestViewFollowsDeliveredEvents(t *testing.T) {
	h := newTestHub(1)
	ch := h.Acquire("app", "presence-x")
	h.Deliver(MemberAdded("app", "presence-x", Member{ID: "early"}, ""))
	h.Deliver(MemberRemoved("app", "presence-x", "gone"))
	h.learnMembers(ch, []Member{{ID: "gone"}, {ID: "stored", Info: `{"a":1}`}})
	if got := ids(h.Snapshot(ch, &Member{ID: "me"}).Members); !slices.Equal(got, []string{"early", "me", "stored"}) {
		t.Fatalf("members %v, want early, me and stored (gone left before the store answered)", got)
	}
	h.Deliver(MemberRemoved("app", "presence-x", "stored"))
	h.Deliver(MemberAdded("app", "presence-x", Member{ID: "late", Info: `{"b":2}`}, "1.1"))
	got := h.Snapshot(ch, &Member{ID: "me"}).Members
	if want := []Member{{ID: "early"}, {ID: "late", Info: `{"b":2}`}, {ID: "me"}}; !slices.Equal(got, want) {
		t.Fatalf("members %+v, want %+v", got, want)
	}
}

// TestSnapshotIsTheLastCachedEvent: a new subscriber of a cache channel is
// told the last event delivered on it, until CacheTTL has passed; client
// events and member events are never cached.
func TestSnapshotIsTheLastCachedEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHub(1)
		ch := h.Acquire("app", "cache-x")
		for _, e := range []string{"e:1", "e:2", "client-e:3"} {
			event, data, _ := cut(e)
			h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: event, Data: data})
		}
		j := h.AttachNew(ch, 0, newSub(1), nil)
		if string(j.Cached) != "e:2" || j.Members != nil {
			t.Fatalf("joined %+v, want the frame e:2 and no members", j)
		}
		time.Sleep(CacheTTL)
		if j := h.Snapshot(ch, nil); j.Cached != nil {
			t.Fatalf("cached %q after CacheTTL", j.Cached)
		}
	})
}

func cut(e string) (string, string, bool) {
	i := len(e) - 2
	return e[:i], e[i+1:], true
}

// TestReconcileTellsTheDifference: after the store changed behind this
// node's back, Reconcile tells its subscribers who joined, and who left
// only when removals are allowed.
func TestReconcileTellsTheDifference(t *testing.T) {
	h := newTestHub(1)
	p := h.presence.(*MemoryPresence)
	ch := h.Acquire("app", "presence-x")
	for _, u := range []string{"stays", "leaves"} {
		if err := join(h, ch, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	s := newSub(9)
	h.AttachNew(ch, 0, s, &Member{ID: "stays"})
	ctx := context.Background()
	p.Leave(ctx, "app", "presence-x", "leaves")
	p.Join(ctx, "app", "presence-x", Member{ID: "joined", Info: `{"n":1}`}, 0)
	h.Reconcile(ctx, false)
	if got := frames(s); !slices.Equal(got, []string{`pusher_internal:member_added:{"user_id":"joined","user_info":{"n":1}}`}) {
		t.Fatalf("without removals the subscriber got %q", got)
	}
	h.Reconcile(ctx, true)
	if got := frames(s); !slices.Equal(got, []string{`pusher_internal:member_removed:{"user_id":"leaves"}`}) {
		t.Fatalf("with removals the subscriber got %q", got)
	}
	h.Reconcile(ctx, true)
	if got := frames(s); len(got) != 0 {
		t.Fatalf("a second round told the subscriber %q", got)
	}
}

// TestReconcileReadsTheCacheAgain: an event published on another node
// while the store was away never reached this node, whose subscribers of
// the cache channel were told an older one; after Reconcile a new
// subscriber here is told the store's, as on every other node. An event
// delivered here since is newer, and stays; a store with nothing cached
// (restarted empty, or not answering) changes nothing.
func TestReconcileReadsTheCacheAgain(t *testing.T) {
	h := newTestHub(1)
	ctx := context.Background()
	ch := h.Acquire("app", "cache-x")
	h.AttachNew(ch, 0, newSub(1), nil)
	h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "e", Data: "1"})
	h.cache.Put(&Message{App: "app", Channel: "cache-x", Event: "e", Data: "2"}) // another node's, never delivered here
	if j := h.Snapshot(ch, nil); string(j.Cached) != "e:1" {
		t.Fatalf("cached %q before Reconcile, want e:1", j.Cached)
	}
	h.Reconcile(ctx, false)
	if j := h.Snapshot(ch, nil); string(j.Cached) != "e:2" {
		t.Fatalf("cached %q after Reconcile, want the store's e:2", j.Cached)
	}

	other := h.Acquire("app", "cache-y")
	h.AttachNew(other, 0, newSub(2), nil)
	h.Deliver(&Message{App: "app", Channel: "cache-y", Event: "e", Data: "3"}) // nothing in the store
	h.Reconcile(ctx, true)
	if j := h.Snapshot(other, nil); string(j.Cached) != "e:3" {
		t.Fatalf("cached %q on a channel the store has nothing for, want e:3 kept", j.Cached)
	}
}

// TestJoinerReadsTheStoreAfterReconcile: the other nodes write what they
// queued during an outage a moment after they are connected again, after
// the first Reconcile; until recacheFor has passed, a joiner of a cache
// channel reads the store rather than this node's copy, and then the copy
// serves again.
func TestJoinerReadsTheStoreAfterReconcile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHub(1)
		ch := h.Acquire("app", "cache-x")
		h.AttachNew(ch, 0, newSub(1), nil)
		h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "e", Data: "1"})
		h.Reconcile(context.Background(), false)
		h.cache.Put(&Message{App: "app", Channel: "cache-x", Event: "e", Data: "2"}) // written after the round
		h.Prepare(ch, 0, func() {})
		if j := h.Snapshot(ch, nil); string(j.Cached) != "e:2" {
			t.Fatalf("a joiner after Reconcile was told %q, want the store's e:2", j.Cached)
		}
		time.Sleep(recacheFor)
		h.cache.Put(&Message{App: "app", Channel: "cache-x", Event: "e", Data: "3"})
		h.Prepare(ch, 0, func() {})
		if j := h.Snapshot(ch, nil); string(j.Cached) != "e:2" {
			t.Fatalf("a joiner long after Reconcile was told %q, want this node's e:2", j.Cached)
		}
	})
}

// TestRecacheKeepsAnEventDeliveredMeanwhile: an event delivered while the
// store is read is newer than what the store answered.
func TestRecacheKeepsAnEventDeliveredMeanwhile(t *testing.T) {
	h := newTestHub(1)
	ch := h.Acquire("app", "cache-x")
	h.AttachNew(ch, 0, newSub(1), nil)
	h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "e", Data: "1"})
	slow := &racingCache{MemoryCache: h.cache.(*MemoryCache), during: func() {
		h.Deliver(&Message{App: "app", Channel: "cache-x", Event: "e", Data: "3"})
	}}
	h.cache.Put(&Message{App: "app", Channel: "cache-x", Event: "e", Data: "2"})
	h.cache = slow
	h.Reconcile(context.Background(), false)
	if j := h.Snapshot(ch, nil); string(j.Cached) != "e:3" {
		t.Fatalf("cached %q, want e:3, delivered while the store was read", j.Cached)
	}
}

// racingCache runs during inside each Get, after reading the store.
type racingCache struct {
	*MemoryCache
	during func()
}

func (c *racingCache) Get(ctx context.Context, app, channel string) (Message, time.Duration, bool, error) {
	m, ttl, ok, err := c.MemoryCache.Get(ctx, app, channel)
	c.during()
	return m, ttl, ok, err
}

// frames returns and forgets what s was delivered.
func frames(s *sub) []string {
	var out []string
	for _, f := range s.got {
		out = append(out, string(f))
	}
	s.got = nil
	return out
}

// farPresence is a Presence in another place: the hub calls it off the
// caller's goroutine. Its joins wait for release, or their deadline.
type farPresence struct {
	mem     *MemoryPresence
	release chan struct{}
}

func (p farPresence) Join(ctx context.Context, app, channel string, m Member, max int) (bool, error) {
	select {
	case <-p.release:
		return p.mem.Join(ctx, app, channel, m, max)
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (p farPresence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.mem.Leave(ctx, app, channel, user)
}

func (p farPresence) Members(ctx context.Context, app, channel string) ([]Member, error) {
	return p.mem.Members(ctx, app, channel)
}

// mailbox is a shard whose Do hands f to the test.
type mailbox struct{ fs chan func() }

func (m mailbox) Post(Delivery) {}
func (m mailbox) Do(f func())   { m.fs <- f }

// TestStoreElsewhereIsCalledOffTheLoop: with a store that is not the
// hub's own, Join returns at once and its answer comes through the
// shard, within StoreWait: the store's, or ErrUnavailable.
func TestStoreElsewhereIsCalledOffTheLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(Config{Shards: 1, Encode: rawEncode, StoreWait: time.Second}, 7)
		box := mailbox{fs: make(chan func(), 1)}
		h.SetShard(0, box)
		far := farPresence{mem: NewMemoryPresence(), release: make(chan struct{})}
		h.SetState(State{Presence: far})
		ch := h.Acquire("app", "presence-x")
		var answers []error
		h.Join(ch, 0, Member{ID: "u"}, 0, "", func(err error) { answers = append(answers, err) })
		time.Sleep(2 * time.Second)
		(<-box.fs)()
		if len(answers) != 1 || !errors.Is(answers[0], ErrUnavailable) {
			t.Fatalf("answers %v, want one ErrUnavailable after StoreWait", answers)
		}
		close(far.release)
		h.Join(ch, 0, Member{ID: "u"}, 0, "", func(err error) { answers = append(answers, err) })
		(<-box.fs)()
		if len(answers) != 2 || answers[1] != nil {
			t.Fatalf("answers %v, want the store's nil", answers)
		}
	})
}

// TestMemberAnnouncedOnce: after an outage a member can reach a node twice,
// once through Reconcile and once as the member_added its own node queued
// while the store was away; the node's subscribers hear it once. A
// member_removed for a member they were never told of is not passed on
// either.
func TestMemberAnnouncedOnce(t *testing.T) {
	h := newTestHub(1)
	p := h.presence.(*MemoryPresence)
	ch := h.Acquire("app", "presence-x")
	s := newSub(9)
	if err := join(h, ch, "me", 0); err != nil {
		t.Fatal(err)
	}
	h.AttachNew(ch, 0, s, &Member{ID: "me"})
	frames(s)
	ctx := context.Background()
	p.Join(ctx, "app", "presence-x", Member{ID: "pc"}, 0)
	h.Reconcile(ctx, false)
	h.Deliver(MemberAdded("app", "presence-x", Member{ID: "pc"}, ""))
	h.Deliver(MemberRemoved("app", "presence-x", "never"))
	if got := frames(s); !slices.Equal(got, []string{`pusher_internal:member_added:{"user_id":"pc"}`}) {
		t.Fatalf("the subscriber got %q, want one member_added of pc", got)
	}
	h.Deliver(MemberAdded("app", "presence-x", Member{ID: "pc", Info: `{"v":2}`}, ""))
	h.Deliver(MemberRemoved("app", "presence-x", "pc"))
	h.Deliver(MemberRemoved("app", "presence-x", "pc"))
	want := []string{`pusher_internal:member_added:{"user_id":"pc","user_info":{"v":2}}`, `pusher_internal:member_removed:{"user_id":"pc"}`}
	if got := frames(s); !slices.Equal(got, want) {
		t.Fatalf("the subscriber got %q, want %q (new info is news; a second removal is not)", got, want)
	}
}

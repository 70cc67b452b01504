package hub

import (
	"context"
	"sort"
	"time"

	"github.com/roostproject/roost/internal/pusher"
)

// A node keeps, for each channel it has subscribers to, the part of the
// channel's shared state that a new subscriber is told of: the members of a
// presence channel and the last event of a cache channel. It learns them
// from the store when the channel comes to the node (learn), then follows
// every event delivered on the channel (observe). So a join reads the store
// at most once per channel and node; every subscriber on the node has been
// told the same thing, which lets Reconcile correct them all at once after
// an outage; and what a joiner is told and the live events it then gets
// follow each other without a gap or a step back, because AttachNew takes
// the snapshot and attaches the subscriber under the channel's lock, which
// observe takes too.

// view is what this node's subscribers of a presence channel have been told
// its members are. Guarded by Channel.mu.
type view struct {
	known   bool
	members map[string]string // user id to user_info, once known
	early   []change          // changes delivered before known, in order
	round   map[string]bool   // users changed during a Reconcile round
}

// change is one member_added (add) or member_removed event.
type change struct {
	m   Member
	add bool
}

// maxEarly bounds the changes a view keeps while it waits for the store.
const maxEarly = 10_000

// cached is the last event of a cache channel as this node knows it.
// Guarded by Channel.mu.
type cached struct {
	known   bool
	frame   []byte // nil: nothing cached
	expires time.Time
	seen    uint64 // events delivered on the channel here, for recache
}

// apply notes c in the view and reports whether it is news to the node's
// subscribers: a member_added of a member they know with the same info, or
// a member_removed of one they do not know, is not (after an outage one
// change can arrive twice: through Reconcile and as the event the member's
// node queued meanwhile). Before the view is known every change is news.
func (v *view) apply(c change) bool {
	if v.round != nil {
		v.round[c.m.ID] = true
	}
	if !v.known {
		if len(v.early) < maxEarly {
			v.early = append(v.early, c)
		}
		return true
	}
	info, had := v.members[c.m.ID]
	if !c.add {
		delete(v.members, c.m.ID)
		return had
	}
	v.members[c.m.ID] = c.m.Info
	return !had || info != c.m.Info
}

// learn makes sure this node knows ch's members (a presence channel) and
// last event (a cache channel), reading them from the store if it does not.
// Only the members are required: without the last event a joiner gets a
// cache miss, as it would while the store is away.
func (h *Hub) learn(ctx context.Context, ch *Channel) error {
	if ch.kind().IsPresence() && !h.knows(ch, func(x *channelExtra) bool { return x.presence().known }) {
		members, err := h.presence.Members(ctx, ch.app.id, ch.name)
		if err != nil {
			return unavailable(err)
		}
		h.learnMembers(ch, members)
	}
	if !ch.kind().IsCache() {
		return nil
	}
	if seen, known := h.cacheSeen(ch); !known || h.rechecking() {
		if m, ttl, ok, err := h.cache.Get(ctx, ch.app.id, ch.name); err == nil {
			h.learnCached(ch, seen, m, ttl, ok)
		}
	}
	return nil
}

// cacheSeen returns how many events ch has had delivered here, and
// whether this node knows its last event.
func (h *Hub) cacheSeen(ch *Channel) (uint64, bool) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	c := ch.extra().last()
	return c.seen, c.known
}

func (h *Hub) knows(ch *Channel, known func(*channelExtra) bool) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return known(ch.extra())
}

// learnMembers makes members, with the changes delivered since, the view.
func (h *Hub) learnMembers(ch *Channel, members []Member) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	v := ch.extra().presence()
	if v.known {
		return
	}
	v.members = make(map[string]string, len(members))
	for _, m := range members {
		v.members[m.ID] = m.Info
	}
	v.known = true
	for _, c := range v.early {
		v.apply(c)
	}
	v.early = nil
}

// learnCached keeps the store's last event, read when seen events had been
// delivered on ch here, unless an event delivered since is newer. A node
// that knew an event already keeps it when the store has none (a store that
// does not answer says so too, see cluster's cache.Get; one restarted
// empty has lost the event anyway).
func (h *Hub) learnCached(ch *Channel, seen uint64, m Message, ttl time.Duration, ok bool) {
	var frame []byte
	if ok {
		frame = h.encode(&m)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	switch c := ch.extra().last(); {
	case !c.known:
		*c = cached{known: true, frame: frame, expires: h.now().Add(ttl), seen: c.seen}
	case ok && c.seen == seen:
		c.frame, c.expires = frame, h.now().Add(ttl)
	}
}

// rechecking reports whether a cache channel's joiner reads the store
// even where this node knows the last event (see recache).
func (h *Hub) rechecking() bool { return h.now().UnixNano() < h.recheck.Load() }

// Prepare calls done on shard's goroutine once this node knows what a new
// subscriber of ch is told besides subscription_succeeded (a cache
// channel's last event): at once if it does, else after asking the store.
// Presence channels are prepared by Join.
func (h *Hub) Prepare(ch *Channel, shard int, done func()) {
	if !ch.kind().IsCache() || h.knows(ch, func(x *channelExtra) bool { return x.last().known }) && !h.rechecking() {
		done()
		return
	}
	h.async(shard, func(ctx context.Context) { h.learn(ctx, ch) }, done)
}

// observe notes what an event delivered on ch changes in this node's view
// of it, and reports whether the event is to be delivered: a member event
// that changes nothing the subscribers were told is not (see view.apply),
// nor a watchlist event (see observeWatch).
func (h *Hub) observe(ch *Channel, m *Message, frame []byte) bool {
	switch {
	case isWatchEvent(ch, m):
		return h.observeWatch(ch, m)
	case ch.kind().IsPresence() && (m.Event == pusher.EventMemberAdded || m.Event == pusher.EventMemberRemoved):
		if member, ok := memberOf(m.Data); ok {
			ch.mu.Lock()
			defer ch.mu.Unlock()
			return ch.extra().presence().apply(change{m: member, add: m.Event == pusher.EventMemberAdded})
		}
	case m.Event == pusher.EventSubscriptionCount:
		countDelivered(ch, m.Data)
	case ch.kind().IsCache() && cacheable(m):
		ch.mu.Lock()
		c := ch.extra().last()
		*c = cached{known: true, frame: frame, expires: h.now().Add(CacheTTL), seen: c.seen + 1}
		ch.mu.Unlock()
	}
	return true
}

// Joined is what a new subscriber is told with subscription_succeeded.
type Joined struct {
	// Index is the subscriber's position in ch's list of its shard.
	Index int
	// Members are a presence channel's members, the joiner included, in
	// user id order.
	Members []Member
	// Cached is a cache channel's last event as a frame; nil if none.
	Cached []byte
}

// AttachNew adds s to ch's subscribers in shard, like Attach, and returns
// what s is to be told (Snapshot). Every event delivered after that
// snapshot reaches s.
func (h *Hub) AttachNew(ch *Channel, shard int, s Subscriber, self *Member) Joined {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	j := h.snapshot(ch, self)
	j.Index = h.attach(ch, shard, s)
	return j
}

// Snapshot returns what a subscriber of ch is told besides
// subscription_succeeded: the members of a presence channel as this node
// knows them, with self added (self is nil on other channels), and the last
// event of a cache channel.
func (h *Hub) Snapshot(ch *Channel, self *Member) Joined {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return h.snapshot(ch, self)
}

// snapshot is Snapshot with ch.mu held.
func (h *Hub) snapshot(ch *Channel, self *Member) Joined {
	var j Joined
	if self != nil {
		j.Members = withSelf(ch.extra().presence().members, *self)
	}
	if ch.kind().IsCache() {
		if c := ch.extra().last(); c.frame != nil && h.now().Before(c.expires) {
			j.Cached = c.frame
		}
	}
	return j
}

// withSelf returns the members of view with self, in user id order.
func withSelf(view map[string]string, self Member) []Member {
	out := make([]Member, 0, len(view)+1)
	for id, info := range view {
		out = append(out, Member{ID: id, Info: info})
	}
	if _, ok := view[self.ID]; !ok {
		out = append(out, self)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

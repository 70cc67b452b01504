package hub

import (
	"sync/atomic"

	"github.com/roostproject/roost/internal/pusher"
)

// Acquire returns the channel, creating it (and telling the broker) when it
// has no local subscription yet, and counts one more subscription on it.
// Every Acquire is paired with one Release.
func (h *Hub) Acquire(app, name string) *Channel {
	h.mu.Lock()
	defer h.mu.Unlock()
	chans := h.apps[app]
	if chans == nil {
		chans = make(map[string]*Channel)
		h.apps[app] = chans
	}
	ch := chans[name]
	if ch == nil {
		ch = &Channel{app: app, name: name, kind: pusher.KindOf(name), shards: make([]atomic.Pointer[shardList], len(h.shards))}
		chans[name] = ch
		h.nchannels++
		h.broker.Subscribe(app, name, func() { h.channelReady(ch) })
		if h.localCounts {
			h.observer.ChannelOccupied(app, name)
		}
	}
	ch.count.Add(1)
	h.nsubs++
	h.counts.Subscribed(app, name, 1)
	return ch
}

// Release undoes one Acquire; the last one removes the channel.
func (h *Hub) Release(ch *Channel) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.counts.Subscribed(ch.app, ch.name, -1)
	h.nsubs--
	if ch.count.Add(-1) > 0 {
		return
	}
	chans := h.apps[ch.app]
	if chans[ch.name] != ch {
		return
	}
	delete(chans, ch.name)
	h.nchannels--
	if len(chans) == 0 {
		delete(h.apps, ch.app)
	}
	h.broker.Unsubscribe(ch.app, ch.name)
	if h.localCounts {
		h.observer.ChannelVacated(ch.app, ch.name)
	}
}

// Attach adds s to ch's subscribers in shard and returns its index there.
// It must be called from the shard's owning goroutine.
func (h *Hub) Attach(ch *Channel, shard int, s Subscriber) int {
	h.locks[shard].Lock()
	defer h.locks[shard].Unlock()
	l := ch.shards[shard].Load()
	if l == nil {
		l = &shardList{}
		ch.shards[shard].Store(l)
	}
	l.subs = append(l.subs, s)
	return len(l.subs) - 1
}

// Detach removes the subscriber at index from ch's list in shard, moving the
// last subscriber into its place (and telling it so).
func (h *Hub) Detach(ch *Channel, shard, index int) {
	h.locks[shard].Lock()
	defer h.locks[shard].Unlock()
	l := ch.shards[shard].Load()
	last := len(l.subs) - 1
	if index != last {
		l.subs[index] = l.subs[last]
		l.subs[index].Moved(ch, index)
	}
	l.subs[last] = nil
	l.subs = l.subs[:last]
	if last == 0 {
		ch.shards[shard].Store(nil)
	}
}

// WhenReady runs f once ch receives the messages published on other nodes:
// at once (on the caller's goroutine, which must own shard) if it already
// does, else later on shard's goroutine. A join sends subscription_succeeded
// from f, so that every event published after it is delivered.
func (h *Hub) WhenReady(ch *Channel, shard int, f func()) {
	ch.mu.Lock()
	if !ch.ready {
		x := ch.extra()
		x.waiters = append(x.waiters, waiter{shard, f})
		ch.mu.Unlock()
		return
	}
	ch.mu.Unlock()
	f()
}

// channelReady is the broker's word that ch's subscription is active.
func (h *Hub) channelReady(ch *Channel) {
	ch.mu.Lock()
	ch.ready = true
	var waiters []waiter
	if ch.x != nil {
		waiters, ch.x.waiters = ch.x.waiters, nil
	}
	ch.mu.Unlock()
	for _, w := range waiters {
		h.shards[w.shard].Do(w.f)
	}
}

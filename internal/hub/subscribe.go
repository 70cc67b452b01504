package hub

// Acquire returns the channel, creating it (and telling the broker) when it
// has no local subscription yet, and counts one more subscription on it.
// Every Acquire is paired with one Release.
func (h *Hub) Acquire(app, name string) *Channel {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.apps[app]
	if a == nil {
		a = &appChannels{id: app}
		h.apps[app] = a
	}
	ch := a.table.get(name)
	if ch == nil {
		ch = &Channel{app: a, name: name}
		a.table.put(ch)
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
	app := ch.app.id
	h.counts.Subscribed(app, ch.name, -1)
	h.nsubs--
	if ch.count.Add(-1) > 0 {
		return
	}
	if h.apps[app] != ch.app || !ch.app.table.remove(ch) {
		return
	}
	h.nchannels--
	if ch.app.table.n == 0 {
		delete(h.apps, app)
	}
	h.broker.Unsubscribe(app, ch.name)
	if h.localCounts {
		h.observer.ChannelVacated(app, ch.name)
	}
}

// Attach adds s to ch's subscribers in shard and returns its index there.
// It must be called from the shard's owning goroutine. The first
// subscriber is kept inline (the solo form); a second one moves it into
// the per-shard lists, which the channel keeps from then on.
func (h *Hub) Attach(ch *Channel, shard int, s Subscriber) int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return h.attach(ch, shard, s)
}

// attach is Attach with ch.mu held.
func (h *Hub) attach(ch *Channel, shard int, s Subscriber) int {
	lists := ch.lists()
	if lists == nil {
		if ch.solo() < 0 {
			h.locks[shard].Lock()
			ch.one = s
			ch.state.Or(int32(shard + 1))
			h.locks[shard].Unlock()
			return 0
		}
		lists = h.unsolo(ch)
	}
	h.locks[shard].Lock()
	defer h.locks[shard].Unlock()
	l := (*lists)[shard].Load()
	if l == nil {
		l = &shardList{}
		(*lists)[shard].Store(l)
	}
	l.subs = append(l.subs, s)
	return len(l.subs) - 1
}

// unsolo moves ch's solo subscriber into new per-shard lists, where its
// index stays 0, and returns them; ch.mu is held. The lists are published
// before the solo bits are cleared, so a publisher always finds it.
func (h *Hub) unsolo(ch *Channel) *shardLists {
	lists := make(shardLists, len(h.shards))
	ch.extra().lists.Store(&lists)
	shard := ch.solo()
	h.locks[shard].Lock()
	defer h.locks[shard].Unlock()
	lists[shard].Store(&shardList{subs: []Subscriber{ch.one}})
	ch.one = nil
	ch.state.And(^int32(stateSolo))
	return &lists
}

// Detach removes the subscriber at index from ch's list in shard, moving the
// last subscriber into its place (and telling it so).
func (h *Hub) Detach(ch *Channel, shard, index int) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	h.locks[shard].Lock()
	defer h.locks[shard].Unlock()
	if ch.solo() == shard {
		ch.one = nil
		ch.state.And(^int32(stateSolo))
		return
	}
	lists := ch.lists()
	l := (*lists)[shard].Load()
	last := len(l.subs) - 1
	if index != last {
		l.subs[index] = l.subs[last]
		l.subs[index].Moved(ch, index)
	}
	l.subs[last] = nil
	l.subs = l.subs[:last]
	if last == 0 {
		(*lists)[shard].Store(nil)
	}
}

// WhenReady runs f once ch receives the messages published on other nodes:
// at once (on the caller's goroutine, which must own shard) if it already
// does, else later on shard's goroutine. A join sends subscription_succeeded
// from f, so that every event published after it is delivered.
func (h *Hub) WhenReady(ch *Channel, shard int, f func()) {
	ch.mu.Lock()
	if !ch.ready() {
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
	ch.state.Or(stateReady)
	var waiters []waiter
	if x := ch.x.Load(); x != nil {
		waiters, x.waiters = x.waiters, nil
	}
	ch.mu.Unlock()
	for _, w := range waiters {
		h.shards[w.shard].Do(w.f)
	}
}

package hub

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/roostproject/roost/internal/pusher"
)

// A node keeps, for each watchlist channel it has subscribers to (one per
// watched user, WatchlistPrefix and the user's id), whether the user is
// online as its subscribers have been told, as it does a presence
// channel's members (view.go): learned from the store when the channel
// comes to the node, then following every watchlist event delivered on it.
// So a new watcher is told what the others were, an event that tells them
// nothing new (an online for a user they know online, announced again from
// another node after an outage) is not delivered, and Reconcile corrects
// them all at once after an outage. The state is two bits of
// Channel.state, changed under Channel.mu: a watched user costs no memory
// beyond its channel.
const (
	stateKnown  = 1 << 17 // the user's state is known
	stateOnline = 1 << 18 // the user is online, as told
	stateRound  = 1 << 19 // no event since Reconcile read the store
)

// isWatchlist reports whether ch is a watchlist channel.
func (ch *Channel) isWatchlist() bool { return strings.HasPrefix(ch.name, WatchlistPrefix) }

// watched returns the id of ch's user; ch is a watchlist channel.
func (ch *Channel) watched() string { return ch.name[len(WatchlistPrefix):] }

// observeWatch notes a watchlist event delivered on ch and reports whether
// it is news to ch's subscribers.
func (h *Hub) observeWatch(ch *Channel, m *Message) bool {
	var e struct {
		Events []struct{ Name string } `json:"events"`
	}
	if json.Unmarshal([]byte(m.Data), &e) != nil || len(e.Events) != 1 {
		return true // not one of Watchlist's
	}
	online := e.Events[0].Name == watchOnline
	ch.mu.Lock()
	defer ch.mu.Unlock()
	s := ch.state.Load()
	if s&stateKnown != 0 && (s&stateOnline != 0) == online {
		return false
	}
	ch.setWatched(online)
	return true
}

// setWatched records ch's user as known online or offline, and that an
// event came since Reconcile read the store; ch.mu is held.
func (ch *Channel) setWatched(online bool) {
	ch.state.And(^int32(stateOnline | stateRound))
	ch.state.Or(stateKnown)
	if online {
		ch.state.Or(stateOnline)
	}
}

// Watching calls done on shard's goroutine with the users of chans, the
// watchlist channels of one app a connection has just joined, that its
// watchers have been told are online, or an ErrUnavailable: the state of a
// channel new to this node is read from the store first.
func (h *Hub) Watching(app string, chans []*Channel, shard int, done func([]string, error)) {
	var online []string
	var err error
	h.async(shard, func(ctx context.Context) {
		var unknown []string
		for _, ch := range chans {
			if ch.state.Load()&stateKnown == 0 {
				unknown = append(unknown, ch.watched())
			}
		}
		if len(unknown) > 0 {
			on, uerr := h.users.Online(ctx, app, unknown)
			if err = unavailable(uerr); err != nil {
				return
			}
			h.learnWatched(chans, on)
		}
		for _, ch := range chans {
			if ch.state.Load()&stateOnline != 0 {
				online = append(online, ch.watched())
			}
		}
	}, func() { done(online, err) })
}

// learnWatched records the users of those of chans not known yet as
// online if the store lists them in online, else offline.
func (h *Hub) learnWatched(chans []*Channel, online []string) {
	on := make(map[string]bool, len(online))
	for _, id := range online {
		on[id] = true
	}
	for _, ch := range chans {
		ch.mu.Lock()
		if ch.state.Load()&stateKnown == 0 {
			ch.setWatched(on[ch.watched()])
		}
		ch.mu.Unlock()
	}
}

// reconcileWatches compares, for every watchlist channel with subscribers
// on this node, what they were told with the store, and tells them the
// difference: online at once, offline only with removals (see Reconcile).
// A channel on which an event arrives while the store is read is left to
// it.
func (h *Hub) reconcileWatches(ctx context.Context, removals bool) {
	byApp := make(map[string][]*Channel)
	for _, ch := range h.channels(func(ch *Channel) bool { return ch.isWatchlist() && ch.state.Load()&stateKnown != 0 }) {
		ch.mu.Lock()
		ch.state.Or(stateRound)
		ch.mu.Unlock()
		byApp[ch.app.id] = append(byApp[ch.app.id], ch)
	}
	for app, chans := range byApp {
		for len(chans) > 0 && ctx.Err() == nil {
			n := min(len(chans), watchBatch)
			h.correctWatches(ctx, app, chans[:n], removals)
			chans = chans[n:]
		}
	}
}

// watchBatch is how many users one store read of reconcileWatches asks
// about.
const watchBatch = 1000

// correctWatches is reconcileWatches for chans, watchlist channels of app.
func (h *Hub) correctWatches(ctx context.Context, app string, chans []*Channel, removals bool) {
	ids := make([]string, len(chans))
	for i, ch := range chans {
		ids[i] = ch.watched()
	}
	online, err := h.users.Online(ctx, app, ids)
	if err != nil {
		return
	}
	on := make(map[string]bool, len(online))
	for _, id := range online {
		on[id] = true
	}
	for _, ch := range chans {
		s, want := ch.state.Load(), on[ch.watched()]
		if s&stateRound != 0 && (s&stateOnline != 0) != want && (want || removals) {
			h.Deliver(Watchlist(app, ch.watched(), want))
		}
	}
}

// isWatchEvent reports whether m is a watchlist event on ch.
func isWatchEvent(ch *Channel, m *Message) bool {
	return m.Event == pusher.EventWatchlistEvents && ch.isWatchlist()
}

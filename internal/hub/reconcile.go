package hub

import (
	"context"
	"slices"
	"time"
)

// Reconcile compares, for every presence channel with subscribers on this
// node, the members they have been told of with the store's, and tells them
// the difference: member_added for each member they lack and, when removals
// is true, member_removed for each member the store no longer has. The
// events go to this node's subscribers only; every node reconciles its own.
//
// A cluster calls it after an outage, when events between nodes may have
// been lost; so it also sends every counted channel's subscription count
// again (see recount), reads every cache channel's last event again (see
// recache), and corrects what the watchers of each watched user were told
// (see reconcileWatches). It passes removals only once every live node has written its
// members again, so that no member still connected is ever removed. A
// member whose events arrive while a channel is being reconciled is left
// to them.
func (h *Hub) Reconcile(ctx context.Context, removals bool) {
	h.recount()
	h.recache(ctx)
	h.reconcileWatches(ctx, removals)
	for _, ch := range h.channels((*Channel).isPresence) {
		if !h.startRound(ch) {
			continue
		}
		members, err := h.presence.Members(ctx, ch.app.id, ch.name)
		added, removed := h.endRound(ch, members, err == nil)
		for _, m := range added {
			h.Deliver(MemberAdded(ch.app.id, ch.name, m, ""))
		}
		for _, id := range removed {
			if removals {
				h.Deliver(MemberRemoved(ch.app.id, ch.name, id))
			}
		}
	}
}

// recacheFor is how long after a Reconcile a cache channel's joiner reads
// the store rather than trust this node's copy: a cluster reconciles every
// second for a while after an outage.
const recacheFor = 2 * time.Second

// recache reads again, for every cache channel with subscribers on this
// node, the store's last event, and makes it what a new subscriber here is
// told: an event published on another node during an outage may never
// have reached this node (pub/sub keeps no history), and this node's copy
// would otherwise stay behind the store's, and every other node's, until
// the next publish. Until recacheFor has passed, a joiner reads the store
// itself too: the other nodes write what they queued meanwhile when they
// have been connected again for a moment, after the first rounds. An event
// delivered while the store is read is newer, and stays (learnCached).
func (h *Hub) recache(ctx context.Context) {
	h.recheck.Store(h.now().Add(recacheFor).UnixNano())
	for _, ch := range h.channels(func(ch *Channel) bool { return ch.kind().IsCache() }) {
		seen, known := h.cacheSeen(ch)
		if !known {
			continue // its first subscriber reads the store itself
		}
		if m, ttl, ok, err := h.cache.Get(ctx, ch.app.id, ch.name); err == nil {
			h.learnCached(ch, seen, m, ttl, ok)
		}
	}
}

// channels returns the channels with local subscribers that keep.
func (h *Hub) channels(keep func(*Channel) bool) []*Channel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []*Channel
	for _, a := range h.apps {
		for ch := range a.table.all() {
			if keep(ch) {
				out = append(out, ch)
			}
		}
	}
	return out
}

func (ch *Channel) isPresence() bool { return ch.kind().IsPresence() }

// startRound starts recording the changes delivered on ch while the store
// is read; it reports false if the node does not know ch's members yet.
func (h *Hub) startRound(ch *Channel) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	v := ch.extra().presence()
	if !v.known {
		return false
	}
	v.round = make(map[string]bool)
	return true
}

// endRound stops recording and, if ok, returns the members the store has
// and the view lacks, and the ids the view has and the store lacks, in
// user id order, leaving out the users changed during the round.
func (h *Hub) endRound(ch *Channel, store []Member, ok bool) (added []Member, removed []string) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	v := ch.extra().presence()
	changed := v.round
	v.round = nil
	if !ok {
		return nil, nil
	}
	inStore := make(map[string]bool, len(store))
	for _, m := range store {
		inStore[m.ID] = true
		if _, ok := v.members[m.ID]; !ok && !changed[m.ID] {
			added = append(added, m)
		}
	}
	for id := range v.members {
		if !inStore[id] && !changed[id] {
			removed = append(removed, id)
		}
	}
	slices.Sort(removed)
	return added, removed
}

package hub

import (
	"context"
	"time"
)

// WaitStored is what the HTTP API does after its publishes: it returns once
// the broker has written everything this node published before the call to
// the shared store, so that a subscriber on any node after the answer gets
// the last one as the cached event, as on one node. It waits at most
// StoreWait (and until ctx ends): then the publications stay queued, already
// delivered here. A batch waits once, after its last event.
//
// Once a wait has run out, later calls return at once until the store
// answers a mark again (the late one's, when it is written): a store that
// stalls without being known unreachable (a paused Redis) holds one round
// of callers for StoreWait, not every caller until the node declares it
// down (docs/cluster.md, "What a 200 means").
func (h *Hub) WaitStored(ctx context.Context) {
	s, ok := h.broker.(Storer)
	if !ok || h.late.Load() {
		return
	}
	done := make(chan struct{}, 1)
	s.Stored(func() {
		done <- struct{}{}
		h.late.Store(false)
	})
	t := time.NewTimer(h.wait)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
		h.ranOut(done)
	}
}

// ranOut records that the store let a wait run out, unless its mark was
// answered meanwhile. The mark's done sends before it clears late, so
// whichever order the two run in, late ends false once the store answers.
func (h *Hub) ranOut(done <-chan struct{}) {
	h.late.Store(true)
	select {
	case <-done:
		h.late.Store(false)
	default:
	}
}

package cluster

// This file is a cluster node's bookkeeping of its channel
// subscriptions, which both backends share: this node's count per channel
// (the answer while the store is away, and what a resync writes outright)
// and the changes gathered since the last flush (added to reads, so that a
// change is seen before it is written). The writes themselves are the
// backend's.

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/hub"
)

// Key names one channel of one app.
type Key struct{ App, Name string }

// Book is a node's subscription counts. Its zero value is empty and ready.
type Book struct {
	// Dirty asks for every count to be written again at the next flush.
	Dirty atomic.Bool
	// Writing is held through a flush or a resync: one of them at a time,
	// so that a resync never writes a share a flush is still adding to.
	// A read holds it shared, from asking the store until it has added the
	// pending changes, so that no change moves from pending to the store
	// in between, where the read would count it nowhere.
	Writing sync.RWMutex

	mu      sync.Mutex  // guards local and pending, and nothing else
	local   map[Key]int // this node's subscriptions per channel
	pending map[Key]int // changes not yet written
}

// Subscribed notes a change of this node's subscribers to a channel; it is
// written by the next flush.
func (b *Book) Subscribed(app, channel string, delta int) {
	k := Key{app, channel}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.local == nil {
		b.local = make(map[Key]int)
	}
	if b.local[k] += delta; b.local[k] <= 0 {
		delete(b.local, k)
	}
	addTo(&b.pending, k, delta)
}

// addTo adds delta to (*m)[k], dropping the entry when it comes to zero.
func addTo(m *map[Key]int, k Key, delta int) {
	if *m == nil {
		*m = make(map[Key]int)
	}
	if (*m)[k] += delta; (*m)[k] == 0 {
		delete(*m, k)
	}
}

// Of reads the local count of k, or its pending change.
func (b *Book) Of(pending bool, k Key) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.which(pending)[k]
}

// which returns b.pending or b.local; b.mu is held.
func (b *Book) which(pending bool) map[Key]int {
	if pending {
		return b.pending
	}
	return b.local
}

// WithPrefix copies the local counts, or the pending changes, of the
// channels of app that start with prefix.
func (b *Book) WithPrefix(pending bool, app, prefix string) map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int)
	for k, n := range b.which(pending) {
		if k.App == app && strings.HasPrefix(k.Name, prefix) {
			out[k.Name] = n
		}
	}
	return out
}

// TakePending returns and forgets the changes gathered since the last
// flush, for a flush to write.
func (b *Book) TakePending() map[Key]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	pending := b.pending
	b.pending = make(map[Key]int)
	return pending
}

// TakeAll returns a copy of the local counts for a resync to write
// outright: the pending changes are in them, so they are forgotten, and
// so is Dirty.
func (b *Book) TakeAll() map[Key]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := make(map[Key]int, len(b.local))
	for k, n := range b.local {
		all[k] = n
	}
	b.pending = make(map[Key]int)
	b.Dirty.Store(false)
	return all
}

// Report tells o of a change of k's cluster-wide count that took it from
// or to zero.
func Report(o hub.Observer, k Key, before, after int) {
	switch {
	case before == 0 && after > 0:
		o.ChannelOccupied(k.App, k.Name)
	case before > 0 && after == 0:
		o.ChannelVacated(k.App, k.Name)
	}
}

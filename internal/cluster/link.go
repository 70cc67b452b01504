package cluster

// This file holds what a cluster node knows of its connection to the
// shared store (Redis or NATS), and the rules both backends apply to it.
//
// The store counts as unreachable when a call finds it gone or the
// heartbeat goes unanswered; while unreachable the node probes it and,
// once it answers, writes its shares again (the store may have restarted
// empty, or applied calls the node had given up on).
//
// A node that saw an outage knows that other nodes' heartbeats may have
// stopped for the same reason: it reaps no node before it has itself been
// connected for a whole NodeTTL after the outage (every live node has
// refreshed its heartbeat by then), and it announces no presence member as
// gone until it has been connected for a heartbeat period (every live node
// has written its shares again by then); see Settled.

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Link is a node's view of its link to the store.
type Link struct {
	Healthy   atomic.Bool
	Dirty     atomic.Bool  // the store may not hold this node's shares as they are
	Recovered atomic.Int64 // Unix ns when the last outage ended; 0: none since start
	outage    atomic.Bool  // an outage was seen and its end not yet noted
	suspects  chan struct{}

	epochs map[string]string // each node's heartbeat value last seen; the health loop's
	listed map[string]bool   // the nodes listed at the last look; the health loop's
}

// NewLink returns the state of a node that has not reached the store yet.
func NewLink() Link {
	return Link{suspects: make(chan struct{}, 1), epochs: make(map[string]string)}
}

// Suspect asks for a heartbeat now: a call went unanswered.
func (s *Link) Suspect() {
	select {
	case s.suspects <- struct{}{}:
	default:
	}
}

// Suspects delivers the requests of Suspect, at most one waiting.
func (s *Link) Suspects() <-chan struct{} { return s.suspects }

// Settled reports whether the store has been reachable for d since the
// last outage this node saw (or since it started, if it saw none).
func (s *Link) Settled(d time.Duration) bool {
	rec := s.Recovered.Load()
	return s.Healthy.Load() && (rec == 0 || time.Since(time.Unix(0, rec)) >= d)
}

// Down records that the store is unreachable; it reports whether the store
// counted as reachable until now.
func (s *Link) Down() (wasHealthy bool) {
	s.outage.Store(true)
	s.Dirty.Store(true)
	return s.Healthy.Swap(false)
}

// Up records that the store answers again, noting when an outage ended;
// it reports whether the store counted as unreachable until now.
func (s *Link) Up() (wasDown bool) {
	if s.outage.Swap(false) {
		s.Recovered.Store(time.Now().UnixNano())
	}
	return !s.Healthy.Swap(true)
}

// Epochs records the heartbeat value of every other live node, and the
// nodes listed, and reports whether one of them changed since the last
// look: another node has written its shares again, or a node listed before
// is no longer (it was reaped, and its counts are gone), and this node's
// clients should be checked.
func (s *Link) Epochs(alive map[string]string, listed []string, self string) (changed bool) {
	seen := make(map[string]string, len(alive))
	for id, epoch := range alive {
		if id == self {
			continue
		}
		if before, ok := s.epochs[id]; ok && before != epoch {
			changed = true
		}
		seen[id] = epoch
	}
	now := make(map[string]bool, len(listed))
	for _, id := range listed {
		now[id] = true
	}
	for id := range s.listed {
		changed = changed || !now[id]
	}
	s.epochs, s.listed = seen, now
	return changed
}

// Drain waits, until ctx ends, while pending reports messages waiting to
// leave and the store is reachable: a closing node's last messages.
func (s *Link) Drain(ctx context.Context, pending func() int) {
	for pending() > 0 && s.Healthy.Load() && Sleep(ctx, 10*time.Millisecond) {
	}
}

// Sleep waits d unless ctx ends first; it reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Ready reports nil while the store (named store in the reason) is
// reachable, else why the node is degraded.
func (s *Link) Ready(store string) error {
	if !s.Healthy.Load() {
		return errors.New(store + " unreachable: local delivery only, cluster traffic buffered")
	}
	return nil
}

// Mark queues o, a mark whose done answers a hub.Storer's Stored call once
// the writes queued before it are in the store. While the link is not
// healthy, or with the outbox full, it calls done at once instead: an HTTP
// API publish never waits for a store known to be away.
func Mark[T any](s *Link, outbox chan<- T, o T, done func()) {
	if !s.Healthy.Load() {
		done()
		return
	}
	select {
	case outbox <- o:
	default:
		done()
	}
}

package cluster

import (
	"context"
	"testing"
)

// flushingStore is a store of channel counts that lets this node's flush
// run while a read of it is at the store, if the flush can: the write
// lands after the store has read its total, the closest a flush can come
// to a read.
type flushingStore struct {
	Store
	c     *counts
	total map[string]int
}

func (s *flushingStore) AddCounts(_ context.Context, b Batch) ([]Transition, error) {
	for k, d := range b.Counts {
		s.total[k.Name] += d
	}
	return nil, nil
}

// read returns the totals as they were when asked, after the flush.
func (s *flushingStore) read() map[string]int {
	was := make(map[string]int, len(s.total))
	for k, n := range s.total {
		was[k] = n
	}
	if s.c.Writing.TryLock() {
		s.c.Writing.Unlock()
		s.c.flush()
	}
	return was
}

func (s *flushingStore) Count(_ context.Context, _, channel string) (int, error) {
	return s.read()[channel], nil
}

func (s *flushingStore) Channels(context.Context, string, string) (map[string]int, error) {
	return s.read(), nil
}

// TestCountsSeeAChangeFlushedDuringTheRead: a subscription not written yet
// is counted by a read even when a flush writes it while the read is at
// the store (the store's total is from before the write, the pending
// change gone after it), for Count and for Channels.
func TestCountsSeeAChangeFlushedDuringTheRead(t *testing.T) {
	ctx := context.Background()
	n := &Node{ctx: ctx}
	n.link.Healthy.Store(true)
	store := &flushingStore{c: &n.counts, total: map[string]int{}}
	n.store, n.counts.n = store, n
	n.counts.Subscribed("app", "c", 1)
	if got, err := n.counts.Count(ctx, "app", "c"); err != nil || got != 1 {
		t.Fatalf("Count = %d, %v; want 1", got, err)
	}
	n.counts.flush()
	n.counts.Subscribed("app", "c", 1)
	if got, err := n.counts.Channels(ctx, "app", ""); err != nil || got["c"] != 2 {
		t.Fatalf("Channels = %v, %v; want c: 2", got, err)
	}
}

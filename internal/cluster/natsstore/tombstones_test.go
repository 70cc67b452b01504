package natsstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// TestOldTombstonesPurged: the counts of vacated channels (kept for their
// receipts) and then their delete markers are removed, and a channel
// occupied again after its marker was read keeps its count (the purge
// stops at the marker's sequence).
func TestOldTombstonesPurged(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	n := ns[0]
	c := n.Counts
	for _, d := range []int{1, -1} {
		c.Subscribed("app", "gone", d)
		c.Subscribed("app", "back", d)
		c.Flush()
	}
	ctx := context.Background()
	kv := n.Store.kv.Load().counts
	if err := purgeEmpty(ctx, kv, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	old, err := oldMarkers(ctx, kv, time.Now().Add(time.Second))
	if err != nil || len(old) != 2 {
		t.Fatalf("markers %d, err %v; want the 2 of the vacated channels", len(old), err)
	}
	c.Subscribed("app", "back", 1) // occupied again between the read and the purge
	c.Flush()
	if err := n.Store.purgeMarkers(ctx, kv, old); err != nil {
		t.Fatal(err)
	}
	if h, err := kv.History(ctx, key("app", "gone")); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("the vacated channel's key still has %d entries (err %v)", len(h), err)
	}
	if got, err := c.Count(ctx, "app", "back"); err != nil || got != 1 {
		t.Fatalf("count of the channel occupied again = %d, err %v; want 1", got, err)
	}
	if h, _ := kv.History(ctx, key("app", "back")); len(h) != 1 {
		t.Fatalf("the channel occupied again has %d entries, want its value alone", len(h))
	}
}

// TestNodeRecordsExpire: the nodes bucket's entries (the node list, the
// reapers' locks) expire RecordTTL after their last write, so that a
// cluster stopped whole leaves them behind for no longer.
func TestNodeRecordsExpire(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	st, err := ns[0].Store.kv.Load().nodes.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.TTL() != cluster.RecordTTL {
		t.Fatalf("nodes bucket TTL %v, want %v", st.TTL(), cluster.RecordTTL)
	}
}

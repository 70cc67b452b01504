package natsstore

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A deleted key leaves a delete marker in its bucket's stream, and a
// cluster deletes keys all the time (a channel vacated, a user gone
// offline), so the markers of every channel name and user id ever seen
// would pile up. Each node removes those older than tombstoneAge every
// purgeEvery. Each marker is purged with the messages before it only, by
// sequence, so that a value written after it (the key created again since)
// is never lost; a marker younger than tombstoneAge is kept, so that a
// node whose read predates it still loses its compare-and-set.

// purgeEvery is how often a node removes old delete markers.
const purgeEvery = 10 * time.Minute

// tombstoneAge is how old a delete marker must be before it is removed.
const tombstoneAge = 30 * time.Minute

// purgeTombstones removes the old delete markers of the buckets whose keys
// come and go.
func (n *NATS) purgeTombstones() {
	b := n.kv.Load()
	if b == nil || !n.link.Healthy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, time.Minute)
	defer cancel()
	for _, kv := range []jetstream.KeyValue{b.presence, b.users, b.counts, b.webhooks} {
		if err := n.purgeBucket(ctx, kv, time.Now().Add(-tombstoneAge)); err != nil {
			n.log.Warn("old delete markers not removed", "bucket", kv.Bucket(), "err", err)
		}
	}
}

// purgeBucket removes kv's delete markers written before limit.
func (n *NATS) purgeBucket(ctx context.Context, kv jetstream.KeyValue, limit time.Time) error {
	old, err := oldMarkers(ctx, kv, limit)
	if err != nil || len(old) == 0 {
		return err
	}
	return n.purgeMarkers(ctx, kv, old)
}

// oldMarkers returns kv's delete markers written before limit.
func oldMarkers(ctx context.Context, kv jetstream.KeyValue, limit time.Time) ([]jetstream.KeyValueEntry, error) {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var old []jetstream.KeyValueEntry
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e := <-w.Updates():
			if e == nil {
				return old, nil
			}
			if e.Operation() != jetstream.KeyValuePut && e.Created().Before(limit) {
				old = append(old, e)
			}
		}
	}
}

// purgeMarkers removes each marker and what came before it on its key,
// never what came after.
func (n *NATS) purgeMarkers(ctx context.Context, kv jetstream.KeyValue, old []jetstream.KeyValueEntry) error {
	stream, err := n.js.Stream(ctx, "KV_"+kv.Bucket())
	if err != nil {
		return err
	}
	for _, e := range old {
		err := stream.Purge(ctx, jetstream.WithPurgeSubject("$KV."+kv.Bucket()+"."+e.Key()),
			jetstream.WithPurgeSequence(e.Revision()+1))
		if err != nil {
			return err
		}
	}
	return nil
}

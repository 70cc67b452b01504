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
	limit := time.Now().Add(-tombstoneAge)
	if err := purgeEmpty(ctx, b.counts, limit); err != nil {
		n.log.Warn("old empty counts not removed", "bucket", b.counts.Bucket(), "err", err)
	}
	for _, kv := range []jetstream.KeyValue{b.presence, b.users, b.counts, b.webhooks} {
		if err := n.purgeBucket(ctx, kv, limit); err != nil {
			n.log.Warn("old delete markers not removed", "bucket", kv.Bucket(), "err", err)
		}
	}
}

// purgeEmpty deletes the count keys written before limit whose total is
// zero, kept only for the receipts of the batch that emptied them (see
// counts.go); each at its revision, so that a count written since stays.
func purgeEmpty(ctx context.Context, kv jetstream.KeyValue, limit time.Time) error {
	old, err := oldEntries(ctx, kv, limit, func(e jetstream.KeyValueEntry) bool {
		c := decode(e.Value())[""]
		return e.Operation() == jetstream.KeyValuePut && (c == nil || c.total() == 0)
	})
	for _, e := range old {
		if err := kv.Delete(ctx, e.Key(), jetstream.LastRevision(e.Revision())); err != nil && !conflict(err) {
			return err
		}
	}
	return err
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
	return oldEntries(ctx, kv, limit, func(e jetstream.KeyValueEntry) bool { return e.Operation() != jetstream.KeyValuePut })
}

// oldEntries returns the latest entries of kv's keys written before limit
// that pick picks.
func oldEntries(ctx context.Context, kv jetstream.KeyValue, limit time.Time, pick func(jetstream.KeyValueEntry) bool) ([]jetstream.KeyValueEntry, error) {
	var old []jetstream.KeyValueEntry
	err := watch(ctx, kv, jetstream.AllKeys, func(e jetstream.KeyValueEntry) {
		if e.Created().Before(limit) && pick(e) {
			old = append(old, e)
		}
	})
	if err != nil {
		return nil, err
	}
	return old, nil
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

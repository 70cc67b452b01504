package natsstore

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// The presence, users and counts buckets keep an entry ShareTTL after its
// last write (the bucket's TTL; nats-server 2.9 has no per-key TTL), so a
// key that no node writes to goes away with its shares (see the core's
// expiry.go). A node writes again, unchanged, each key it holds a share in
// that nobody has written for ShareRefresh, so the key of a live node's
// share never comes near its end.

// Refresh implements cluster.Refresher.
func (n *NATS) Refresh(ctx context.Context, h cluster.Held) error {
	return n.do(func(b *buckets) error {
		type target struct {
			kv  jetstream.KeyValue
			key string
		}
		var all []target
		for _, part := range []struct {
			kv   jetstream.KeyValue
			keys []cluster.Key
		}{{b.presence, h.Presence}, {b.users, h.Users}, {b.counts, h.Counts}} {
			for _, k := range part.keys {
				all = append(all, target{part.kv, key(k.App, k.Name)})
			}
		}
		return inParallel(n.parallel, all, func(t target) error {
			return n.rewrite(ctx, t.kv, t.key, time.Now().Add(-cluster.ShareRefresh))
		})
	})
}

// rewrite writes key's value again if it was last written before limit.
// A write that loses to another node's is no failure: that write refreshed
// the key.
func (n *NATS) rewrite(ctx context.Context, kv jetstream.KeyValue, key string, limit time.Time) error {
	e, err := lookup(ctx, kv, key)
	if e == nil || !e.Created().Before(limit) {
		return err
	}
	rev, err := kv.Update(ctx, key, e.Value(), e.Revision())
	if conflict(err) {
		return nil
	}
	n.guesses.keep(kv, key, e.Value(), rev, err)
	return err
}

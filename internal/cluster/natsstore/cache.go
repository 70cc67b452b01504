package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/hub"
)

// cache is the cluster's hub.Cache: one key per cache channel in the cache
// bucket, whose entries expire CacheTTL after they were written. A node
// keeps no copy: while NATS is away a subscriber gets a cache miss.
type cache struct{ n *Node }

var _ hub.Cache = cache{}

// Put implements hub.Cache: the write is published on the bucket's subject
// before the event itself, on the same connection, so it never waits; its
// ack tells Stored that it is in the bucket.
func (c cache) Put(m *hub.Message) {
	b, _ := json.Marshal(m)
	subject := "$KV." + c.n.cfg.Prefix + "_cache." + key(m.App, m.Channel)
	c.n.enqueueAcked(subject, b)
}

// Get implements hub.Cache.
func (c cache) Get(ctx context.Context, app, channel string) (hub.Message, time.Duration, bool, error) {
	b := c.n.kv.Load()
	if b == nil || !c.n.link.Healthy.Load() {
		return hub.Message{}, 0, false, nil
	}
	e, err := b.cache.Get(ctx, key(app, channel))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return hub.Message{}, 0, false, nil
	case err != nil:
		c.n.link.Suspect()
		return hub.Message{}, 0, false, err
	}
	var m hub.Message
	ttl := hub.CacheTTL - time.Since(e.Created())
	if json.Unmarshal(e.Value(), &m) != nil || ttl <= 0 {
		return hub.Message{}, 0, false, nil
	}
	return m, ttl, true, nil
}

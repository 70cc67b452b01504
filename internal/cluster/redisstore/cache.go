package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// cache is the cluster's hub.Cache: one Redis key per cache channel, with
// CacheTTL. A node keeps no copy: while Redis is away a subscriber gets a
// cache miss, and the writes wait in the outbox.
type cache struct{ r *Redis }

var _ hub.Cache = cache{}

// Put implements hub.Cache: the write is queued behind the publish.
func (c cache) Put(m *hub.Message) {
	c.r.enqueue(outbound{msg: m, cache: true})
}

// Get implements hub.Cache.
func (c cache) Get(ctx context.Context, app, channel string) (hub.Message, time.Duration, bool, error) {
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	err := c.r.call(ctx, func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, c.r.cacheKey(app, channel))
			ttl = p.PTTL(ctx, c.r.cacheKey(app, channel))
			return nil
		})
		return err
	})
	switch {
	case errors.Is(err, errDown):
		return hub.Message{}, 0, false, nil
	case err != nil:
		return hub.Message{}, 0, false, err
	}
	var m hub.Message
	if get.Err() != nil || json.Unmarshal([]byte(get.Val()), &m) != nil || ttl.Val() <= 0 {
		return hub.Message{}, 0, false, nil
	}
	return m, ttl.Val(), true, nil
}

package redisstore

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// Count implements cluster.Reads.
func (r *Redis) Count(ctx context.Context, app, channel string) (int, error) {
	var v string
	err := r.call(ctx, func(ctx context.Context) (err error) {
		v, err = r.rdb.HGet(ctx, r.channelsKey(app), channel).Result()
		return err
	})
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total(), err
}

// Channels implements cluster.Reads.
func (r *Redis) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	var all map[string]string
	err := r.call(ctx, func(ctx context.Context) (err error) {
		all, err = r.rdb.HGetAll(ctx, r.channelsKey(app)).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int)
	for name, v := range all {
		var e entry
		if strings.HasPrefix(name, prefix) && json.Unmarshal([]byte(v), &e) == nil {
			out[name] = e.total()
		}
	}
	return out, nil
}

// Members implements cluster.Reads.
func (r *Redis) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	var all map[string]string
	err := r.call(ctx, func(ctx context.Context) (err error) {
		all, err = r.rdb.HGetAll(ctx, r.presenceKey(app, channel)).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]hub.Member, 0, len(all))
	for id, v := range all {
		var e entry
		if json.Unmarshal([]byte(v), &e) == nil && e.total() > 0 {
			out = append(out, hub.Member{ID: id, Info: e.I})
		}
	}
	return out, nil
}

// IsMember implements cluster.Reads.
func (r *Redis) IsMember(ctx context.Context, app, channel, user string) (member bool, err error) {
	err = r.call(ctx, func(ctx context.Context) (err error) {
		member, err = r.rdb.HExists(ctx, r.presenceKey(app, channel), user).Result()
		return err
	})
	return member, err
}

// Online implements cluster.Reads.
func (r *Redis) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	var vals []any
	err := r.call(ctx, func(ctx context.Context) (err error) {
		vals, err = r.rdb.HMGet(ctx, r.usersKey(app), ids...).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for i, v := range vals {
		if v != nil {
			out = append(out, ids[i])
		}
	}
	return out, nil
}

// Cached implements cluster.Reads: one key per cache channel, with
// CacheTTL.
func (r *Redis) Cached(ctx context.Context, app, channel string) (hub.Message, time.Duration, bool, error) {
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	err := r.call(ctx, func(ctx context.Context) error {
		_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, r.cacheKey(app, channel))
			ttl = p.PTTL(ctx, r.cacheKey(app, channel))
			return nil
		})
		return err
	})
	if err != nil {
		return hub.Message{}, 0, false, err
	}
	var m hub.Message
	if get.Err() != nil || json.Unmarshal([]byte(get.Val()), &m) != nil || ttl.Val() <= 0 {
		return hub.Message{}, 0, false, nil
	}
	return m, ttl.Val(), true, nil
}

package redisstore

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// get runs f through call and returns its value.
func get[T any](r *Redis, ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	var v T
	err := r.call(ctx, func(ctx context.Context) (err error) {
		v, err = f(ctx)
		return err
	})
	return v, err
}

// Count implements cluster.Reads.
func (r *Redis) Count(ctx context.Context, app, channel string) (int, error) {
	v, err := get(r, ctx, func(ctx context.Context) (string, error) {
		return r.rdb.HGet(ctx, r.channelsKey(app), channel).Result()
	})
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total(), err
}

// Channels implements cluster.Reads.
func (r *Redis) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	all, err := get(r, ctx, func(ctx context.Context) (map[string]string, error) {
		return r.rdb.HGetAll(ctx, r.channelsKey(app)).Result()
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
	all, err := get(r, ctx, func(ctx context.Context) (map[string]string, error) {
		return r.rdb.HGetAll(ctx, r.presenceKey(app, channel)).Result()
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
func (r *Redis) IsMember(ctx context.Context, app, channel, user string) (bool, error) {
	return get(r, ctx, func(ctx context.Context) (bool, error) {
		return r.rdb.HExists(ctx, r.presenceKey(app, channel), user).Result()
	})
}

// Online implements cluster.Reads.
func (r *Redis) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	vals, err := get(r, ctx, func(ctx context.Context) ([]any, error) { return r.rdb.HMGet(ctx, r.usersKey(app), ids...).Result() })
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
	err := r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		get = p.Get(ctx, r.cacheKey(app, channel))
		ttl = p.PTTL(ctx, r.cacheKey(app, channel))
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

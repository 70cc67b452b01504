package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// Backend is the Redis that url names, in one of the forms of
// redisurl.Parse.
func Backend(url string) cluster.Backend {
	return cluster.StoreBackend(url, open, Kept, Purge)
}

// boardKey is the hash of the dashboards' entries: one key, so one slot of
// a Redis Cluster.
func (r *Redis) boardKey() string { return r.cfg.Prefix + ":dashboard:nodes" }

// Post implements cluster.Board.
func (r *Redis) Post(ctx context.Context, node string, v []byte) error {
	return r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		p.HSet(ctx, r.boardKey(), node, v)
		p.PExpire(ctx, r.boardKey(), cluster.RecordTTL) // a cluster stopped whole leaves it for no longer
	})
}

// Entries implements cluster.Board.
func (r *Redis) Entries(ctx context.Context) (map[string][]byte, error) {
	all, err := get(r, ctx, func(ctx context.Context) (map[string]string, error) { return r.rdb.HGetAll(ctx, r.boardKey()).Result() })
	out := make(map[string][]byte, len(all))
	for k, v := range all {
		out[k] = []byte(v)
	}
	return out, err
}

// Unpost implements cluster.Board.
func (r *Redis) Unpost(ctx context.Context, nodes ...string) {
	r.call(ctx, func(ctx context.Context) error { return r.rdb.HDel(ctx, r.boardKey(), nodes...).Err() })
}

package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// routeKey is the key of an HTTP fallback session's record: one key a
// session, each on its own slot of a Redis Cluster, expiring
// cluster.RouteTTL after its last write.
func (r *Redis) routeKey(session string) string { return r.cfg.Prefix + ":route:" + session }

// Claim implements cluster.Routes, in one pipeline.
func (r *Redis) Claim(ctx context.Context, owner string, sessions []string) error {
	return r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, s := range sessions {
			p.Set(ctx, r.routeKey(s), owner, cluster.RouteTTL)
		}
	})
}

// Owner implements cluster.Routes.
func (r *Redis) Owner(ctx context.Context, session string) (string, error) {
	return get(r, ctx, func(ctx context.Context) (string, error) { return r.rdb.Get(ctx, r.routeKey(session)).Result() })
}

// Unclaim implements cluster.Routes: one key a call, as a Redis Cluster
// refuses keys of several slots in one.
func (r *Redis) Unclaim(ctx context.Context, sessions ...string) {
	for _, s := range sessions {
		r.call(ctx, func(ctx context.Context) error { return r.rdb.Del(ctx, r.routeKey(s)).Err() })
	}
}

package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// The share keys expire ShareTTL after their last refresh (see the core's
// expiry.go): a presence hash when a member joins, the per-app hashes of
// counts and users at every heartbeat (few keys, and a count write is not
// to wait for it), and every key this node holds a share in at each
// Refresh.

// Refresh implements cluster.Refresher: one pipeline of PEXPIREs.
func (r *Redis) Refresh(ctx context.Context, h cluster.Held) error {
	return r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, k := range h.Presence {
			p.PExpire(ctx, r.presenceKey(k.App, k.Name), cluster.ShareTTL)
		}
		apps := make(map[string]bool)
		for _, ks := range [][]cluster.Key{h.Users, h.Counts} {
			for _, k := range ks {
				apps[k.App] = true
			}
		}
		for app := range apps {
			r.expireApp(ctx, p, app)
		}
	})
}

// expireApp queues the refresh of app's hashes of counts and users.
func (r *Redis) expireApp(ctx context.Context, p redis.Pipeliner, app string) {
	p.PExpire(ctx, r.channelsKey(app), cluster.ShareTTL)
	p.PExpire(ctx, r.usersKey(app), cluster.ShareTTL)
}

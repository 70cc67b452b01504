package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// WriteShares implements cluster.Shares: every presence channel the node
// listed, or has members on now, and every app's users, exactly (see
// syncScript), in one pipeline.
func (r *Redis) WriteShares(ctx context.Context, own cluster.Own) error {
	listed, err := r.rdb.SMembers(ctx, r.nodeKey("node-presence", r.node)).Result()
	if err != nil {
		return err
	}
	signedIn := make(map[string][]any)
	for k, conns := range own.Users {
		signedIn[k.App] = append(signedIn[k.App], k.Name, conns, "")
	}
	list := r.nodeKey("node-presence", r.node)
	return r.pipelined(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, ac := range listed {
			if k := pairKey(ac); own.Presence[k] == nil {
				syncScript.Eval(ctx, p, []string{r.presenceKey(k.App, k.Name)}, r.node)
			}
		}
		p.Del(ctx, list)
		for k, shares := range own.Presence {
			args := []any{r.node}
			for _, s := range shares {
				args = append(args, s.ID, s.Conns, s.Info)
			}
			syncScript.Eval(ctx, p, []string{r.presenceKey(k.App, k.Name)}, args...)
			p.SAdd(ctx, list, k.App+":"+k.Name)
		}
		p.Expire(ctx, list, cluster.RecordTTL)
		for _, app := range r.cfg.Apps {
			syncScript.Eval(ctx, p, []string{r.usersKey(app)}, append([]any{r.node}, signedIn[app]...)...)
		}
	})
}

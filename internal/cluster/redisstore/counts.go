package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// The counts are one Redis hash per app, whose entries hold each node's
// subscriptions to a channel.

// AddCounts implements cluster.Shares: one script a channel, in one
// pipeline. The scripts that ran before an error still report.
func (r *Redis) AddCounts(ctx context.Context, changes map[cluster.Key]int) ([]cluster.Transition, error) {
	keys := make([]cluster.Key, 0, len(changes))
	var cmds []*redis.Cmd
	err := r.call(ctx, func(ctx context.Context) error {
		_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k, d := range changes {
				keys = append(keys, k)
				cmds = append(cmds, addScript.Eval(ctx, p, []string{r.channelsKey(k.App)}, k.Name, r.node, d, "", 0))
			}
			return nil
		})
		return err
	})
	if cluster.Unreachable(err) {
		return nil, err
	}
	var moved []cluster.Transition
	for i, cmd := range cmds {
		if before, after, full, err := totals(cmd); err == nil && !full {
			moved = append(moved, cluster.Transition{Key: keys[i], Before: before, After: after})
		}
	}
	return moved, err
}

// SetCounts implements cluster.Shares.
func (r *Redis) SetCounts(ctx context.Context, all map[cluster.Key]int) ([]cluster.Transition, error) {
	byApp := make(map[string][]any)
	for k, n := range all {
		byApp[k.App] = append(byApp[k.App], k.Name, n, "")
	}
	cmds := make(map[string]*redis.Cmd)
	err := r.call(ctx, func(ctx context.Context) error {
		_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, app := range r.cfg.Apps {
				cmds[app] = syncScript.Eval(ctx, p, []string{r.channelsKey(app)}, append([]any{r.node}, byApp[app]...)...)
			}
			return nil
		})
		return err
	})
	var moved []cluster.Transition
	for app, cmd := range cmds {
		moved = append(moved, synced(app, cmd)...)
	}
	return moved, err
}

// synced reads syncScript's answer: the channels whose cluster-wide count
// a resync took from zero, and those it took to zero.
func synced(app string, cmd *redis.Cmd) []cluster.Transition {
	res, err := cmd.Slice()
	if err != nil || len(res) != 2 {
		return nil
	}
	var out []cluster.Transition
	for i, before := range []int{0, 1} {
		names, _ := res[i].([]any)
		for _, n := range names {
			if name, ok := n.(string); ok {
				out = append(out, cluster.Transition{Key: cluster.Key{App: app, Name: name}, Before: before, After: 1 - before})
			}
		}
	}
	return out
}

package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// The counts are one Redis hash per app, whose entries hold each node's
// subscriptions to a channel. Beside it, each node's receipts (see
// receiptsKey) make each count batch once.

// AddCounts implements cluster.Shares: one script a channel, in one
// pipeline, each made once per batch (see addScript).
func (r *Redis) AddCounts(ctx context.Context, b cluster.Batch) ([]cluster.Transition, error) {
	keys := make([]cluster.Key, 0, len(b.Counts))
	var cmds []*redis.Cmd
	id := batchID(b.ID)
	err := r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for k, d := range b.Counts {
			keys = append(keys, k)
			ks := []string{r.channelsKey(k.App), r.receiptsKey(k.App)}
			cmds = append(cmds, addScript.Eval(ctx, p, ks, k.Name, r.node, d, "", 0, id))
		}
	})
	if err != nil {
		return nil, err
	}
	moved := make([]cluster.Transition, 0, len(cmds))
	for i, cmd := range cmds {
		before, after, full, err := totals(cmd)
		if err != nil {
			return nil, err
		}
		if !full {
			moved = append(moved, cluster.Transition{Key: keys[i], Before: before, After: after})
		}
	}
	return moved, nil
}

// SetCounts implements cluster.Shares: one script an app, in one pipeline,
// each made once per batch (see syncScript).
func (r *Redis) SetCounts(ctx context.Context, b cluster.Batch) ([]cluster.Transition, error) {
	byApp := make(map[string][]any)
	for k, n := range b.Counts {
		byApp[k.App] = append(byApp[k.App], k.Name, n, "")
	}
	id := batchID(b.ID)
	cmds := make(map[string]*redis.Cmd)
	err := r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, app := range r.cfg.Apps {
			args := append(append([]any{r.node}, byApp[app]...), id)
			cmds[app] = syncScript.Eval(ctx, p, []string{r.channelsKey(app), r.receiptsKey(app)}, args...)
		}
	})
	if err != nil {
		return nil, err
	}
	var moved []cluster.Transition
	for app, cmd := range cmds {
		t, err := synced(app, cmd)
		if err != nil {
			return nil, err
		}
		moved = append(moved, t...)
	}
	return moved, nil
}

// batchID is a count batch's id as the scripts compare it: zero-padded to
// the length of the largest uint64.
func batchID(id uint64) string { return fmt.Sprintf("%020d", id) }

// synced reads syncScript's answer for app's counts: the channels whose
// cluster-wide count a resync took from zero, and those it took to zero.
func synced(app string, cmd *redis.Cmd) ([]cluster.Transition, error) {
	var out []cluster.Transition
	err := eachSynced(cmd, func(name string, before int) {
		out = append(out, cluster.Transition{Key: cluster.Key{App: app, Name: name}, Before: before, After: 1 - before})
	})
	return out, err
}

// eachSynced calls f with each field of syncScript's answer: before 0 for
// a field whose total the script took from zero, 1 for one it took to zero.
func eachSynced(cmd *redis.Cmd, f func(field string, before int)) error {
	res, err := cmd.Slice()
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	if len(res) != 2 {
		return fmt.Errorf("redis: a resync answered %d lists, want 2", len(res))
	}
	for before, list := range res {
		fields, _ := list.([]any)
		for _, v := range fields {
			if field, ok := v.(string); ok {
				f(field, before)
			}
		}
	}
	return nil
}

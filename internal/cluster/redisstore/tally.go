package redisstore

import (
	"context"

	"github.com/roostproject/roost/internal/cluster"
)

// Each node's record of its connections per app is a key of its own,
// {nodes}:conns:ID, that lapses ConnsTTL after its last write.

// PostTally implements cluster.Tallies.
func (r *Redis) PostTally(ctx context.Context, record []byte) error {
	return r.call(ctx, func(ctx context.Context) error {
		return r.rdb.Set(ctx, r.nodeKey("conns", r.node), record, cluster.ConnsTTL).Err()
	})
}

// Tallies implements cluster.Tallies: one MGET.
func (r *Redis) Tallies(ctx context.Context, nodes []string) (map[string][]byte, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	return perNode(r, ctx, "conns", nodes, func(v string) []byte { return []byte(v) })
}

// perNode reads the key nodeKey(part, n) of each of nodes in one MGET,
// and returns as(value) for each node that has one.
func perNode[T any](r *Redis, ctx context.Context, part string, nodes []string, as func(string) T) (map[string]T, error) {
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		keys[i] = r.nodeKey(part, n)
	}
	vals, err := get(r, ctx, func(ctx context.Context) ([]any, error) { return r.rdb.MGet(ctx, keys...).Result() })
	if err != nil {
		return nil, err
	}
	out := make(map[string]T, len(nodes))
	for i, n := range nodes {
		if v, ok := vals[i].(string); ok {
			out[n] = as(v)
		}
	}
	return out, nil
}

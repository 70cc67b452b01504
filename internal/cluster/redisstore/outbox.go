package redisstore

import (
	"context"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/webhook"
)

// A node's webhook outbox is one hash, entry key to record, tagged with
// the node so that all of it is on one shard of a Redis Cluster: a write
// of puts and removals is one pipeline on one connection, applied in
// order, so a removal never overtakes its put. It outlives its node's
// last write by cluster.RecordTTL, like the node's other records.

// outboxKey names node's outbox.
func (r *Redis) outboxKey(node string) string {
	return r.cfg.Prefix + ":outbox:{outbox:" + node + "}"
}

// OutboxWrite implements cluster.Outbox.
func (r *Redis) OutboxWrite(ctx context.Context, node string, puts []webhook.Entry, dels []string) error {
	key := r.outboxKey(node)
	return r.call(ctx, func(ctx context.Context) error {
		_, err := r.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			if len(puts) > 0 {
				kv := make([]any, 0, 2*len(puts))
				for _, e := range puts {
					kv = append(kv, e.Key, e.Data)
				}
				pipe.HSet(ctx, key, kv...)
				pipe.Expire(ctx, key, cluster.RecordTTL)
			}
			if len(dels) > 0 {
				pipe.HDel(ctx, key, dels...)
			}
			return nil
		})
		return err
	})
}

// OutboxRead implements cluster.Outbox.
func (r *Redis) OutboxRead(ctx context.Context, node string) ([]webhook.Entry, error) {
	all, err := get(r, ctx, func(ctx context.Context) (map[string]string, error) {
		return r.rdb.HGetAll(ctx, r.outboxKey(node)).Result()
	})
	if err != nil {
		return nil, err
	}
	out := make([]webhook.Entry, 0, len(all))
	for k, v := range all {
		out = append(out, webhook.Entry{Key: k, Data: []byte(v)})
	}
	slices.SortFunc(out, func(a, b webhook.Entry) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// OutboxClear implements cluster.Outbox.
func (r *Redis) OutboxClear(ctx context.Context, node string) error {
	return r.call(ctx, func(ctx context.Context) error { return r.rdb.Del(ctx, r.outboxKey(node)).Err() })
}

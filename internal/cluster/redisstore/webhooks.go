package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/webhook"
)

// takeScript deletes KEYS[1] if it holds ARGV[1]; 1 if it did.
var takeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Hold implements cluster.Store: one key per delayed event, a batch of
// operations one pipeline, run in order.
func (r *Redis) Hold(ctx context.Context, ops []webhook.Op) {
	cmds := make([]*redis.IntCmd, len(ops))
	takes := make([]*redis.Cmd, len(ops))
	err := r.call(ctx, func(ctx context.Context) error {
		_, err := r.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for i, op := range ops {
				key := r.webhookKey(op.Key)
				switch op.Kind {
				case webhook.OpHold:
					pipe.Set(ctx, key, op.Token, op.TTL)
				case webhook.OpCancel:
					cmds[i] = pipe.Del(ctx, key)
				case webhook.OpTake:
					takes[i] = takeScript.Eval(ctx, pipe, []string{key}, op.Token)
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		cluster.TowardsSending(ops)
		return
	}
	for i := range ops {
		switch {
		case cmds[i] != nil:
			ops[i].Found = cmds[i].Val() > 0
		case takes[i] != nil:
			n, _ := takes[i].Int64()
			ops[i].Found = n > 0
		}
	}
}

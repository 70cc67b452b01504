package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/webhook"
)

// A key of a delayed event holds its pending token, or the receipt of the
// cancel ("!c:" and the comeback's token) or take ("!t:" and the token)
// that ended it, for the rest of its TTL (see webhook.OpKind). Tokens
// never start with "!".

// endScript ends KEYS[1]'s mark if it is pending, leaving its receipt
// '!' .. ARGV[1] .. ':' .. ARGV[2]: a cancel (ARGV[1] 'c') ends any pending
// mark, a take ('t') only one pending with its token ARGV[2]. 1 if it did,
// or the receipt was there already.
var endScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
local receipt = '!' .. ARGV[1] .. ':' .. ARGV[2]
if v == receipt then return 1 end
if not v or string.sub(v, 1, 1) == '!' or (ARGV[1] == 't' and v ~= ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], receipt, 'KEEPTTL')
return 1
`)

// Hold implements cluster.Store: one key per delayed event, a batch of
// operations one pipeline, run in order.
func (r *Redis) Hold(ctx context.Context, ops []webhook.Op) {
	cmds := make([]*redis.Cmd, len(ops))
	err := r.pipeline(ctx, func(ctx context.Context, pipe redis.Pipeliner) {
		for i, op := range ops {
			key := r.webhookKey(op.Key)
			switch op.Kind {
			case webhook.OpHold:
				pipe.Set(ctx, key, op.Token, op.TTL)
			case webhook.OpCancel:
				cmds[i] = endScript.Eval(ctx, pipe, []string{key}, "c", op.Token)
			case webhook.OpTake:
				cmds[i] = endScript.Eval(ctx, pipe, []string{key}, "t", op.Token)
			}
		}
	})
	if err != nil {
		cluster.TowardsSending(ops)
		return
	}
	for i := range ops {
		if cmds[i] != nil {
			n, _ := cmds[i].Int64()
			ops[i].Found = n > 0
		}
	}
}

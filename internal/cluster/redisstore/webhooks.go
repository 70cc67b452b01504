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

// cancelScript cancels KEYS[1] if it is pending, leaving ARGV[1]'s
// receipt; 1 if it was pending or already cancelled by ARGV[1].
var cancelScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if v == '!c:' .. ARGV[1] then return 1 end
if string.sub(v, 1, 1) == '!' then return 0 end
redis.call('SET', KEYS[1], '!c:' .. ARGV[1], 'KEEPTTL')
return 1
`)

// takeScript takes KEYS[1] if it is pending with ARGV[1], leaving its
// receipt; 1 if it was, or was already taken with ARGV[1].
var takeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == '!t:' .. ARGV[1] then return 1 end
if v ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], '!t:' .. ARGV[1], 'KEEPTTL')
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
				cmds[i] = cancelScript.Eval(ctx, pipe, []string{key}, op.Token)
			case webhook.OpTake:
				cmds[i] = takeScript.Eval(ctx, pipe, []string{key}, op.Token)
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

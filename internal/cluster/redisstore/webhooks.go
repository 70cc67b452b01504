package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/webhook"
)

// Webhook events are reported once per cluster: a channel's 0 -> 1 and
// 1 -> 0 come from the script that changes its cluster-wide count (counts.flush,
// or counts.resync when the node writes all its counts again),
// a member's from the presence script (through the hub), and the members and
// channels of a dead node from the survivor that reaps it. Delayed events
// (channel_vacated, member_removed) are held in Redis, so that a comeback
// on any node cancels them.

// transition reports the change of a channel's cluster-wide count.
func (r *Redis) transition(k pair, before, after int) {
	cluster.Report(r.cfg.Observer, k, before, after)
}

// FlushCounts writes this node's pending count changes now (reporting their
// transitions), as a stopping node does before its webhooks close.
func (r *Redis) FlushCounts() { r.counts.flush() }

// WebhookPending returns the cluster's record of delayed webhook events (a
// webhook.Pending): one key per event, so that whichever node sees the
// comeback cancels it.
func (r *Redis) WebhookPending() *Pending { return &Pending{r} }

// Pending keeps delayed webhook events in Redis. A batch of operations is
// one pipeline, run in order. While Redis is unreachable it errs towards
// sending: nothing is cancelled and every held event is due.
type Pending struct{ r *Redis }

var _ webhook.Pending = (*Pending)(nil)

// takeScript deletes KEYS[1] if it holds ARGV[1]; 1 if it did.
var takeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Apply implements webhook.Pending.
func (p *Pending) Apply(ops []webhook.Op) {
	cmds := make([]*redis.IntCmd, len(ops))
	takes := make([]*redis.Cmd, len(ops))
	ctx, cancel := context.WithTimeout(p.r.ctx, p.r.cfg.SlowReply)
	defer cancel()
	err := p.r.call(ctx, func(ctx context.Context) error {
		_, err := p.r.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for i, op := range ops {
				key := p.r.webhookKey(op.Key)
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
	for i := range ops {
		switch {
		case err != nil:
			ops[i].Found = ops[i].Kind == webhook.OpTake
		case cmds[i] != nil:
			ops[i].Found = cmds[i].Val() > 0
		case takes[i] != nil:
			n, _ := takes[i].Int64()
			ops[i].Found = n > 0
		}
	}
}

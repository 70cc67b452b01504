package cluster

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Webhook events are reported once per cluster: a channel's 0 -> 1 and
// 1 -> 0 come from the script that changes its cluster-wide count (counts.flush),
// a member's from the presence script (through the hub), and the members and
// channels of a dead node from the survivor that reaps it. Delayed events
// (channel_vacated, member_removed) are held in Redis, so that a comeback
// on any node cancels them.

// transition reports the change of a channel's cluster-wide count.
func (r *Redis) transition(k pair, before, after int64) {
	switch {
	case before == 0 && after > 0:
		r.cfg.Observer.ChannelOccupied(k.app, k.name)
	case before > 0 && after == 0:
		r.cfg.Observer.ChannelVacated(k.app, k.name)
	}
}

// FlushCounts writes this node's pending count changes now (reporting their
// transitions), as a stopping node does before its webhooks close.
func (r *Redis) FlushCounts() { r.counts.flush() }

// WebhookPending returns the cluster's record of delayed webhook events (a
// webhook.Pending): one key per event, so that whichever node sees the
// comeback cancels it.
func (r *Redis) WebhookPending() *Pending { return &Pending{r} }

// Pending keeps delayed webhook events in Redis. While Redis is unreachable
// it errs towards sending: nothing is cancelled and every event is due.
type Pending struct{ r *Redis }

func (p *Pending) key(k string) string { return p.r.key("webhook", k) }

// Hold marks key as pending with token for ttl.
func (p *Pending) Hold(key, token string, ttl time.Duration) {
	p.r.call(func(ctx context.Context) error { return p.r.rdb.Set(ctx, p.key(key), token, ttl).Err() })
}

// Cancel removes key's mark and reports whether there was one.
func (p *Pending) Cancel(key string) bool {
	var n int64
	p.r.call(func(ctx context.Context) (err error) {
		n, err = p.r.rdb.Del(ctx, p.key(key)).Result()
		return err
	})
	return n > 0
}

// takeScript deletes KEYS[1] if it holds ARGV[1]; 1 if it did.
var takeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Take removes key's mark if it is still token's and reports whether it
// was; true when Redis cannot tell.
func (p *Pending) Take(key, token string) bool {
	n := int64(1)
	p.r.call(func(ctx context.Context) (err error) {
		n, err = takeScript.Run(ctx, p.r.rdb, []string{p.key(key)}, token).Int64()
		return err
	})
	return n > 0
}

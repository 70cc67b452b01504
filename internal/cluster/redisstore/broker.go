package redisstore

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// Write implements cluster.Store: one pipeline, the marks answered once it
// is written. Each message is numbered before its first try (see cluster.Seen), so
// that a copy Redis got from a try that timed out is not delivered again.
func (r *Redis) Write(batch []cluster.Outbound) bool {
	for i := range batch {
		if batch[i].Seq == 0 {
			batch[i].Seq = r.seqs.next(r, batch[i])
		}
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.SlowReply)
	defer cancel()
	err := r.pipelined(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, o := range batch {
			r.queueWrite(ctx, p, o)
		}
	})
	if err != nil {
		r.failed(err)
		return false
	}
	for _, o := range batch {
		if o.Done != nil {
			o.Done()
		}
	}
	return true
}

func (r *Redis) queueWrite(ctx context.Context, p redis.Pipeliner, o cluster.Outbound) {
	m := o.Msg
	switch {
	case m == nil:
		return
	case o.Cache:
		b, _ := json.Marshal(m)
		p.Set(ctx, r.cacheKey(m.App, m.Channel), b, hub.CacheTTL)
		return
	}
	b := r.n.Seal(o)
	if r.sharded {
		p.SPublish(ctx, r.topic(m.App, m.Channel), b)
		return
	}
	p.Publish(ctx, r.topic(m.App, m.Channel), b)
}

// Subscribe implements cluster.Store. A subscription is confirmed by Redis
// through the receive loop; while Redis is away it is answered at once
// (the subscription is made again when Redis returns). The topics are
// subscribed again after a reconnect, a failover or a reshard (see
// topics).
func (r *Redis) Subscribe(ops []cluster.SubOp) {
	for _, op := range ops {
		r.apply(op)
	}
}

func (r *Redis) apply(op cluster.SubOp) {
	topic := r.topic(op.App, op.Channel)
	if !op.On {
		r.topics.off(topic)
		return
	}
	if !r.link.Healthy.Load() {
		r.topics.on(topic)
		op.Ready()
		return
	}
	r.awaiting.add(topic, op.Ready)
	time.AfterFunc(cluster.SubscribeWait, func() { r.awaiting.fire(topic) })
	if err := r.topics.on(topic); err != nil {
		r.awaiting.fire(topic)
	}
}

// awaiting holds, per topic, the ready calls of subscriptions that Redis has
// not confirmed yet.
type awaiting struct {
	mu    sync.Mutex
	ready map[string][]func()
}

func (a *awaiting) add(topic string, f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ready == nil {
		a.ready = make(map[string][]func())
	}
	a.ready[topic] = append(a.ready[topic], f)
}

// fire calls and forgets the ready calls waiting on topic.
func (a *awaiting) fire(topic string) {
	a.mu.Lock()
	fs := a.ready[topic]
	delete(a.ready, topic)
	a.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// receive delivers one message from another node, the first time only.
func (r *Redis) receive(msg *redis.Message) {
	e := r.n.Unseal([]byte(msg.Payload))
	if e == nil {
		return
	}
	if e.Seq > 0 && !r.seen.First(r.stream(e.Node, msg.Channel), e.Seq, time.Now()) {
		r.n.Repeated()
		return
	}
	r.n.Deliver(e.Msg)
}

// numbering gives each message its number in its stream (see cluster.Seen): one
// counter per node, or per slot on a Redis Cluster. The publish loop owns
// it.
type numbering []uint64

func newNumbering(sharded bool) numbering {
	if sharded {
		return make(numbering, slots)
	}
	return make(numbering, 1)
}

// next numbers o, a message; a cache write or a mark needs no number.
func (n numbering) next(r *Redis, o cluster.Outbound) uint64 {
	if o.Cache || o.Msg == nil {
		return 0
	}
	i := 0
	if len(n) > 1 {
		i = int(slot(r.topic(o.Msg.App, o.Msg.Channel)))
	}
	n[i]++
	return n[i]
}

// stream names the stream a message from node on topic belongs to.
func (r *Redis) stream(node, topic string) string {
	if !r.sharded {
		return node
	}
	return node + "/" + strconv.Itoa(int(slot(topic)))
}

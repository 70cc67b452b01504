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

// envelope is what travels on a topic: the message, the node it came from
// and its sequence number there (see seen; 0 from nodes that number none).
type envelope struct {
	Node string       `json:"n"`
	Seq  uint64       `json:"s,omitempty"`
	Msg  *hub.Message `json:"m"`
}

// outbound is a queued write: a message to publish, or a cache entry to
// set; or, with a nil msg, a mark whose done is called once the writes
// queued before it are in Redis (see Stored).
type outbound struct {
	msg   *hub.Message
	cache bool
	seq   uint64 // given on the first try to publish
	done  func()
}

// Publish delivers m to this node's subscribers at once and queues it for
// the other nodes. It never blocks: with the outbox full, m is dropped for
// the cluster (and counted) but still delivered here.
func (r *Redis) Publish(m *hub.Message) error {
	r.cfg.Deliver(m)
	r.enqueue(outbound{msg: m})
	return nil
}

func (r *Redis) enqueue(o outbound) {
	select {
	case r.outbox <- o:
	default:
		r.dropped.Add(1)
	}
}

// Stored implements hub.Storer: a mark in the outbox, answered when the
// batch holding it is written, at once while Redis is away or the outbox
// full.
func (r *Redis) Stored(done func()) {
	cluster.Mark(&r.link, r.outbox, outbound{done: done}, done)
}

// Subscribe starts receiving a channel's messages from other nodes and
// calls ready when Redis confirms the subscription (at once while Redis is
// unreachable, and after subscribeWait at the latest).
func (r *Redis) Subscribe(app, channel string, ready func()) {
	r.subs.Push(cluster.SubOp{Topic: r.topic(app, channel), On: true, Ready: ready})
}

// Unsubscribe stops receiving a channel's messages.
func (r *Redis) Unsubscribe(app, channel string) {
	r.subs.Push(cluster.SubOp{Topic: r.topic(app, channel)})
}

// subscribeWait bounds how long a join waits for Redis to confirm a
// subscription before it is answered anyway.
const subscribeWait = 2 * time.Second

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

// subscribeLoop applies subscription changes in order. The topics are
// subscribed again after a reconnect, a failover or a reshard (see topics).
func (r *Redis) subscribeLoop() {
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-r.subs.Wake():
		}
		for _, op := range r.subs.Take() {
			r.apply(op)
		}
	}
}

// apply sends one subscription change. A subscription is confirmed by
// Redis through the receive loop; while Redis is away it is answered at
// once (the subscription is made again when Redis returns).
func (r *Redis) apply(op cluster.SubOp) {
	if !op.On {
		r.topics.off(op.Topic)
		return
	}
	if !r.link.Healthy.Load() {
		r.topics.on(op.Topic)
		op.Ready()
		return
	}
	r.awaiting.add(op.Topic, op.Ready)
	time.AfterFunc(subscribeWait, func() { r.awaiting.fire(op.Topic) })
	if err := r.topics.on(op.Topic); err != nil {
		r.awaiting.fire(op.Topic)
	}
}

// receive delivers one message from another node, the first time only.
func (r *Redis) receive(msg *redis.Message) {
	var e envelope
	if json.Unmarshal([]byte(msg.Payload), &e) != nil || e.Msg == nil || e.Node == r.node {
		return
	}
	if e.Seq > 0 && !r.seen.first(r.stream(e.Node, msg.Channel), e.Seq, time.Now()) {
		r.dupes.Add(1)
		return
	}
	r.cfg.Deliver(e.Msg)
}

// publishLoop writes the outbox to Redis in order, in pipelined batches,
// retrying a failed batch until Redis takes it. Each message is numbered
// before its first try, so that a copy Redis got from a try that timed out
// is not delivered again.
func (r *Redis) publishLoop() {
	batch := make([]outbound, 0, 256)
	seqs := newNumbering(r.sharded)
	for {
		select {
		case <-r.ctx.Done():
			return
		case o := <-r.outbox:
			batch = append(batch[:0], o)
		}
		for len(batch) < cap(batch) && len(r.outbox) > 0 {
			batch = append(batch, <-r.outbox)
		}
		for i := range batch {
			batch[i].seq = seqs.next(r, batch[i])
		}
		for !r.write(batch) {
			if !cluster.Sleep(r.ctx, 250*time.Millisecond) || !r.awaitSubscribers() {
				return
			}
		}
		for _, o := range batch {
			if o.done != nil {
				o.done()
			}
		}
	}
}

// resubscribeTime is how long a node that saw Redis go away waits, once
// Redis answers again, before it publishes what it buffered: the other
// nodes saw the same outage, and each subscribes again within a probe or
// two (probeEvery) of Redis answering; a message published before that is
// lost for them.
const resubscribeTime = 3 * probeEvery

// awaitSubscribers waits while Redis is unreachable, and then until the
// node has been reachable again for resubscribeTime; it reports whether
// the node is still running.
func (r *Redis) awaitSubscribers() bool {
	for !r.settled(resubscribeTime) {
		if !cluster.Sleep(r.ctx, probeEvery/4) {
			return false
		}
	}
	return r.ctx.Err() == nil
}

// write sends one batch in a pipeline.
func (r *Redis) write(batch []outbound) bool {
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.SlowReply)
	defer cancel()
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, o := range batch {
			r.queueWrite(ctx, p, o)
		}
		return nil
	})
	if err != nil {
		r.failed(err)
		return false
	}
	return true
}

func (r *Redis) queueWrite(ctx context.Context, p redis.Pipeliner, o outbound) {
	m := o.msg
	switch {
	case m == nil:
		return
	case o.cache:
		b, _ := json.Marshal(m)
		p.Set(ctx, r.cacheKey(m.App, m.Channel), b, hub.CacheTTL)
		return
	}
	b, _ := json.Marshal(envelope{Node: r.node, Seq: o.seq, Msg: m})
	if r.sharded {
		p.SPublish(ctx, r.topic(m.App, m.Channel), b)
		return
	}
	p.Publish(ctx, r.topic(m.App, m.Channel), b)
}

// numbering gives each message its number in its stream (see seen): one
// counter per node, or per slot on a Redis Cluster. publishLoop owns it.
type numbering []uint64

func newNumbering(sharded bool) numbering {
	if sharded {
		return make(numbering, slots)
	}
	return make(numbering, 1)
}

// next numbers o, a message; a cache write or a mark needs no number.
func (n numbering) next(r *Redis, o outbound) uint64 {
	if o.cache || o.msg == nil {
		return 0
	}
	i := 0
	if len(n) > 1 {
		i = int(slot(r.topic(o.msg.App, o.msg.Channel)))
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

package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// topics holds a node's pub/sub subscriptions and brings their messages to
// Redis.receive. On one Redis (or a Sentinel primary) all topics share one
// connection (plainTopics); on a Redis Cluster each topic is a sharded
// channel on the primary that owns its slot (shardedTopics). A topic is
// confirmed through Redis.awaiting when Redis acknowledges it.
type topics interface {
	// on subscribes to a topic; an error means the request did not leave.
	on(topic string) error
	// off unsubscribes.
	off(topic string)
	// run receives until the node stops.
	run()
	// close ends the subscriptions.
	close()
}

// plainTopics is one PubSub connection, which go-redis connects again and
// subscribes again to its topics after a failure.
//
// With Sentinel a failover can leave that connection on the old primary:
// go-redis moves the client's other connections to the new primary, and
// the old one stays a primary, hearing nothing, until Sentinel turns it
// into a replica (up to 10 s later, when it next looks). So the node also
// subscribes to a topic of its own and asks, every checkEvery, how many
// subscribers it has where the node's commands go: none means the
// subscription is elsewhere, and the node subscribes again.
type plainTopics struct {
	r         *Redis
	self      string      // the node's own topic
	confirmed atomic.Bool // the current connection has subscribed to self

	mu     sync.Mutex // guards ps and topics
	ps     *redis.PubSub
	topics map[string]bool
}

var _ topics = (*plainTopics)(nil)

// checkEvery is how often a node checks that its subscription connection
// is on the server its commands go to.
const checkEvery = time.Second

func newPlainTopics(r *Redis) *plainTopics {
	p := &plainTopics{r: r, self: r.nodeKey("subscriber", r.node), topics: make(map[string]bool)}
	p.ps = r.rdb.Subscribe(r.ctx, p.self)
	return p
}

func (p *plainTopics) on(topic string) error {
	p.mu.Lock()
	p.topics[topic] = true
	ps := p.ps
	p.mu.Unlock()
	return ps.Subscribe(p.r.ctx, topic)
}

func (p *plainTopics) off(topic string) {
	p.mu.Lock()
	delete(p.topics, topic)
	ps := p.ps
	p.mu.Unlock()
	ps.Unsubscribe(p.r.ctx, topic)
}

func (p *plainTopics) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ps.Close()
}

func (p *plainTopics) current() *redis.PubSub {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ps
}

// run delivers the messages other nodes publish. A broken connection is
// an outage (see cluster.Link); one replaced by resubscribe is not.
func (p *plainTopics) run() {
	r := p.r
	r.n.Every(checkEvery, p.check)
	for r.ctx.Err() == nil {
		ps := p.current()
		in, err := ps.Receive(r.ctx)
		switch {
		case err != nil && (r.ctx.Err() != nil || ps != p.current()):
		case err != nil:
			r.n.Down(err)
			cluster.Sleep(r.ctx, cluster.ProbeEvery)
		default:
			if sub, ok := in.(*redis.Subscription); ok && sub.Channel == p.self {
				p.confirmed.Store(sub.Kind == "subscribe")
				continue
			}
			r.handle(in)
		}
	}
}

// check subscribes again when the server the node's commands go to has
// none of its subscriptions.
func (p *plainTopics) check() {
	if !p.r.link.Healthy.Load() || !p.confirmed.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(p.r.ctx, p.r.cfg.SlowReply)
	defer cancel()
	n, err := p.r.rdb.PubSubNumSub(ctx, p.self).Result()
	if err == nil && n[p.self] == 0 && p.confirmed.Load() {
		p.resubscribe()
	}
}

// resubscribe replaces the subscription connection with a new one, which
// the client dials to the server its commands go to.
func (p *plainTopics) resubscribe() {
	p.r.log.Warn("the subscription connection is not on the redis primary: subscribing again")
	p.mu.Lock()
	all := []string{p.self}
	for t := range p.topics {
		all = append(all, t)
	}
	old := p.ps
	p.confirmed.Store(false)
	p.ps = p.r.rdb.Subscribe(p.r.ctx, all...)
	p.mu.Unlock()
	old.Close()
}

// handle takes one thing a subscription connection received: a message,
// or the confirmation of a subscription.
func (r *Redis) handle(in any) {
	switch v := in.(type) {
	case *redis.Subscription:
		if v.Kind == "subscribe" || v.Kind == "ssubscribe" {
			r.awaiting.fire(v.Channel)
		}
	case *redis.Message:
		r.receive(v)
	}
}

package cluster

import (
	"github.com/redis/go-redis/v9"
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
type plainTopics struct {
	r  *Redis
	ps *redis.PubSub
}

var _ topics = (*plainTopics)(nil)

func (p *plainTopics) on(topic string) error { return p.ps.Subscribe(p.r.ctx, topic) }
func (p *plainTopics) off(topic string)      { p.ps.Unsubscribe(p.r.ctx, topic) }
func (p *plainTopics) close()                { p.ps.Close() }

// run delivers the messages other nodes publish. A broken connection is
// an outage (see link).
func (p *plainTopics) run() {
	r := p.r
	for r.ctx.Err() == nil {
		in, err := p.ps.Receive(r.ctx)
		if err != nil {
			if r.ctx.Err() == nil {
				r.down(err)
				sleep(r.ctx, probeEvery)
			}
			continue
		}
		r.handle(in)
	}
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

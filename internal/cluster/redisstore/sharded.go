package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// shardedTopics subscribes each topic as a sharded channel (SSUBSCRIBE) on
// the primary that owns the topic's slot, over one connection per primary,
// so that a publish (SPUBLISH) goes to one shard instead of every node of
// the Redis Cluster.
//
// A subscription can be lost three ways, and each one is put back without
// the hub's help: the slot moves to another primary (Redis ends the
// subscription with an sunsubscribe, or refuses a new one with MOVED), the
// primary fails (its connection breaks; a replica takes over its slots),
// or the routing the client holds is stale. The topic is then subscribed
// on the slot's primary as soon as the client's view of the cluster names
// it: route tries the topics that wait every routeEvery, and checks every
// topic's primary once a heartbeat period (the client reads the cluster's
// slots again as often). Messages published to a topic between the loss
// and the new subscription do not reach this node (docs/cluster.md, "What
// a failover or a reshard loses").
//
// A broken primary may also have lost writes it had acknowledged (Redis
// replicates asynchronously), so the node then writes its shares again.
type shardedTopics struct {
	r     *Redis
	cc    *redis.ClusterClient
	stale atomic.Bool // check every topic's primary at the next route

	mu      sync.Mutex        // guards the four maps
	want    map[string]bool   // the topics the node subscribes to
	waiting map[string]bool   // wanted topics not placed yet
	placed  map[string]*shard // each subscribed topic's connection
	shards  map[string]*shard // the connections, by primary address
}

// routeEvery is how often topics that lost their primary are tried again.
const routeEvery = 20 * time.Millisecond

var _ topics = (*shardedTopics)(nil)

// shard is the subscription connection to one primary.
type shard struct {
	addr   string
	ps     *redis.PubSub
	closed atomic.Bool // closed by the node, not broken
}

func (sh *shard) close() {
	sh.closed.Store(true)
	sh.ps.Close()
}

func newShardedTopics(r *Redis, cc *redis.ClusterClient) *shardedTopics {
	return &shardedTopics{r: r, cc: cc, want: make(map[string]bool), waiting: make(map[string]bool),
		placed: make(map[string]*shard), shards: make(map[string]*shard)}
}

// on implements topics.
func (s *shardedTopics) on(topic string) error {
	s.mu.Lock()
	s.want[topic] = true
	s.mu.Unlock()
	return s.place(topic)
}

// off implements topics.
func (s *shardedTopics) off(topic string) {
	s.mu.Lock()
	delete(s.want, topic)
	delete(s.waiting, topic)
	sh := s.placed[topic]
	delete(s.placed, topic)
	s.mu.Unlock()
	if sh != nil {
		sh.ps.SUnsubscribe(s.r.ctx, topic)
	}
}

// close implements topics.
func (s *shardedTopics) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sh := range s.shards {
		sh.close()
	}
	clear(s.shards)
}

// place subscribes topic on the primary the client names for its slot,
// leaving the connection it was on, if another. A topic that cannot be
// placed now waits for route.
func (s *shardedTopics) place(topic string) error {
	ctx, cancel := context.WithTimeout(s.r.ctx, s.r.cfg.SlowReply)
	defer cancel()
	primary, err := s.cc.MasterForKey(ctx, topic)
	if err != nil {
		s.wait(topic)
		return err
	}
	return s.placeOn(ctx, topic, primary)
}

// placeOn subscribes topic on primary's connection.
func (s *shardedTopics) placeOn(ctx context.Context, topic string, primary *redis.Client) error {
	sh, old := s.attach(topic, primary)
	if sh == nil {
		return nil
	}
	if old != nil && old != sh {
		old.ps.SUnsubscribe(ctx, topic)
	}
	if err := sh.ps.SSubscribe(ctx, topic); err != nil {
		s.detach(topic, sh)
		s.stale.Store(true)
		return err
	}
	return nil
}

// attach records topic as placed on primary's connection, opening it if
// needed, and returns it and the connection the topic was on; nil when the
// topic is no longer wanted or the node is stopping.
func (s *shardedTopics) attach(topic string, primary *redis.Client) (sh, old *shard) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.want[topic] || s.r.ctx.Err() != nil {
		return nil, nil
	}
	addr := primary.Options().Addr
	if sh = s.shards[addr]; sh == nil {
		sh = &shard{addr: addr, ps: primary.SSubscribe(s.r.ctx)}
		s.shards[addr] = sh
		s.r.n.Go(func() { s.receive(sh) })
	}
	old = s.placed[topic]
	s.placed[topic] = sh
	delete(s.waiting, topic)
	return sh, old
}

// wait leaves a wanted topic for route.
func (s *shardedTopics) wait(topic string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.want[topic] && s.placed[topic] == nil {
		s.waiting[topic] = true
	}
}

// detach forgets that topic is placed on sh, if it still is, so that
// route places it again; it reports whether it was.
func (s *shardedTopics) detach(topic string, sh *shard) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.placed[topic] != sh {
		return false
	}
	delete(s.placed, topic)
	if s.want[topic] {
		s.waiting[topic] = true
	}
	return true
}

// receive reads one primary's connection until it breaks or the node
// stops.
func (s *shardedTopics) receive(sh *shard) {
	r := s.r
	for {
		in, err := sh.ps.Receive(r.ctx)
		switch {
		case r.ctx.Err() != nil || sh.closed.Load():
			return
		case err != nil && isReply(err):
			// MOVED or CLUSTERDOWN for a subscription: the routing changed.
			s.stale.Store(true)
			s.cc.ReloadState(r.ctx)
		case err != nil:
			s.lost(sh, err)
			return
		}
		if sub, ok := in.(*redis.Subscription); ok && sub.Kind == "sunsubscribe" {
			s.dropped(sh, sub.Channel)
		}
		r.handle(in)
	}
}

// dropped handles an sunsubscribe: the node's own, or Redis's when the
// topic's slot left this primary (a reshard or a failover).
func (s *shardedTopics) dropped(sh *shard, topic string) {
	if s.detach(topic, sh) { // placed here still: not the node's own
		sh.ps.SUnsubscribe(s.r.ctx, topic) // go-redis forgets it: not subscribed again on reconnect
		s.stale.Store(true)
		s.cc.ReloadState(s.r.ctx)
	}
}

// lost handles a broken connection: its topics are placed again, and the
// node writes its shares again.
func (s *shardedTopics) lost(sh *shard, err error) {
	s.mu.Lock()
	if s.shards[sh.addr] == sh {
		delete(s.shards, sh.addr)
	}
	n := 0
	for t, at := range s.placed {
		if at == sh {
			delete(s.placed, t)
			s.waiting[t] = true
			n++
		}
	}
	s.mu.Unlock()
	sh.close()
	s.stale.Store(true)
	s.cc.ReloadState(s.r.ctx)
	if n == 0 {
		return // a connection that never served: its primary is being tried
	}
	s.r.log.Warn("redis cluster primary unreachable: subscribing its channels again", "addr", sh.addr, "channels", n, "err", err)
	s.r.n.Rewrite()
}

// run places the topics that wait every routeEvery, and checks every
// topic's primary once a heartbeat period, or every cluster.ProbeEvery while the
// routing is known to have changed.
func (s *shardedTopics) run() {
	t := time.NewTicker(routeEvery)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.r.ctx.Done():
			return
		case <-t.C:
		}
		since := time.Since(last)
		all := since >= s.r.n.Period() || since >= cluster.ProbeEvery && s.stale.Swap(false)
		if all {
			last = time.Now()
			s.cc.ReloadState(s.r.ctx) // for the next round: this one reads the view it has
		}
		s.route(all)
	}
}

// route places each topic that waits, or (all) each wanted topic whose
// primary is no longer the one it is placed on and then closes the
// connections no topic uses (not at once: a channel that comes and goes
// keeps its connection). A primary that cannot be reached is not tried again in the
// same round.
func (s *shardedTopics) route(all bool) {
	ctx, cancel := context.WithTimeout(s.r.ctx, s.r.cfg.SlowReply)
	defer cancel()
	s.mu.Lock()
	from := s.waiting
	if all {
		from = s.want
	}
	todo := make(map[string]*shard, len(from))
	for t := range from {
		todo[t] = s.placed[t]
	}
	if all {
		s.closeIdle()
	}
	s.mu.Unlock()
	failed := make(map[string]bool)
	for t, sh := range todo {
		primary, err := s.cc.MasterForKey(ctx, t)
		switch {
		case err != nil:
			s.wait(t)
		case sh != nil && primary.Options().Addr == sh.addr:
		case failed[primary.Options().Addr]:
			s.wait(t)
		case s.placeOn(ctx, t, primary) != nil:
			failed[primary.Options().Addr] = true
		}
	}
}

// closeIdle closes the connections no topic is placed on; s.mu is held.
func (s *shardedTopics) closeIdle() {
	used := make(map[*shard]bool, len(s.shards))
	for _, sh := range s.placed {
		used[sh] = true
	}
	for addr, sh := range s.shards {
		if !used[sh] {
			delete(s.shards, addr)
			sh.close()
		}
	}
}

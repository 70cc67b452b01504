package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
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
// it; route runs every probeEvery while a topic waits for a primary, and
// checks every topic's primary once a heartbeat period. Messages published
// to a topic between the loss and the new subscription do not reach this
// node (docs/cluster.md, "What a failover or a reshard loses").
//
// A broken primary may also have lost writes it had acknowledged (Redis
// replicates asynchronously), so the node then writes its shares again.
type shardedTopics struct {
	r     *Redis
	cc    *redis.ClusterClient
	stale atomic.Bool // check every topic's primary at the next route

	mu     sync.Mutex        // guards the three maps
	want   map[string]bool   // the topics the node subscribes to
	placed map[string]*shard // each subscribed topic's connection
	shards map[string]*shard // the connections, by primary address
}

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
	return &shardedTopics{r: r, cc: cc, want: make(map[string]bool),
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
// placed now is left for route.
func (s *shardedTopics) place(topic string) error {
	ctx, cancel := context.WithTimeout(s.r.ctx, s.r.cfg.SlowReply)
	defer cancel()
	primary, err := s.cc.MasterForKey(ctx, topic)
	if err != nil {
		s.stale.Store(true)
		return err
	}
	sh, old := s.attach(topic, primary)
	if sh == nil {
		return nil
	}
	if old != nil && old != sh {
		old.ps.SUnsubscribe(ctx, topic)
	}
	if err := sh.ps.SSubscribe(ctx, topic); err != nil {
		s.detach(topic, sh)
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
		s.r.start(func() { s.receive(sh) })
	}
	old = s.placed[topic]
	s.placed[topic] = sh
	return sh, old
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
	s.mu.Lock()
	moved := s.want[topic] && s.placed[topic] == sh
	if moved {
		delete(s.placed, topic)
	}
	s.mu.Unlock()
	if moved {
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
			n++
		}
	}
	s.mu.Unlock()
	sh.close()
	s.r.log.Warn("redis cluster primary unreachable: subscribing its channels again", "addr", sh.addr, "channels", n, "err", err)
	s.r.link.dirty.Store(true)
	s.r.counts.dirty.Store(true)
	s.r.link.suspect()
	s.stale.Store(true)
	s.cc.ReloadState(s.r.ctx)
}

// run places the topics that wait for a primary every probeEvery, and
// checks every topic's primary once a heartbeat period.
func (s *shardedTopics) run() {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.r.ctx.Done():
			return
		case <-t.C:
		}
		all := s.stale.Swap(false) || time.Since(last) >= s.r.period()
		if all {
			last = time.Now()
		}
		s.route(all)
	}
}

// route places each wanted topic that is not placed, or (all) whose
// primary is no longer the one it is placed on, and closes connections no
// topic uses.
func (s *shardedTopics) route(all bool) {
	ctx, cancel := context.WithTimeout(s.r.ctx, s.r.cfg.SlowReply)
	defer cancel()
	s.mu.Lock()
	placed := make(map[string]*shard, len(s.want))
	for t := range s.want {
		placed[t] = s.placed[t]
	}
	s.closeIdle()
	s.mu.Unlock()
	for t, sh := range placed {
		if sh != nil && (!all || s.still(ctx, t, sh)) {
			continue
		}
		if err := s.place(t); err != nil {
			s.stale.Store(true)
		}
	}
}

// still reports whether the client names sh's primary for topic (from its
// cached view of the cluster).
func (s *shardedTopics) still(ctx context.Context, topic string, sh *shard) bool {
	primary, err := s.cc.MasterForKey(ctx, topic)
	return err == nil && primary.Options().Addr == sh.addr
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

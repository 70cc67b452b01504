package redisstore

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// The tests below make a private redis-server fail under nodes in this
// process, with short heartbeats where the test is about them.

// counter counts the messages delivered to a node, by data.
type counter struct {
	mu  sync.Mutex
	got map[string]int
}

func (c *counter) deliver(m *hub.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.got == nil {
		c.got = make(map[string]int)
	}
	c.got[m.Event+" "+m.Data]++
}

func (c *counter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[key]
}

// onFaultBackends runs a fault test on each of testutil.RedisServers: one
// private Redis, and a private Redis Cluster whose nodes all fail at once.
func onFaultBackends(t *testing.T, f func(t *testing.T, redis testutil.RedisServer)) {
	for _, b := range testutil.RedisServers {
		t.Run(b.Name, func(t *testing.T) { f(t, b.Start(t)) })
	}
}

// faultNodes starts n nodes on a private Redis with heartbeat TTL ttl;
// the second one reaches it through late, if not nil.
func faultNodes(t *testing.T, n int, ttl time.Duration, late *gatedProxy) (*testutil.Redis, []*node, []*counter) {
	redis := testutil.StartRedis(t)
	rs, counters := nodesOn(t, redis, n, ttl, late)
	return redis, rs, counters
}

// nodesOn starts n nodes on target with heartbeat TTL ttl; the second one
// reaches it through late, if not nil.
func nodesOn(t *testing.T, target testutil.RedisServer, n int, ttl time.Duration, late *gatedProxy) ([]*node, []*counter) {
	rs, counters := make([]*node, n), make([]*counter, n)
	for i := range rs {
		counters[i] = &counter{}
		url := target.URL()
		if i == 1 && late != nil {
			late.forwardTo(url)
			url = late.url()
		}
		r := start(t, url, cluster.Settings{Node: uint64(i + 1), Apps: []string{"app"}, Deliver: counters[i].deliver, NodeTTL: ttl})
		t.Cleanup(func() { r.Close() })
		rs[i] = r
	}
	return rs, counters
}

// subscribed subscribes r to channel and waits until Redis confirms it.
func subscribed(t *testing.T, r *node, channel string) {
	ready := make(chan struct{})
	r.Subscribe("app", channel, func() { close(ready) })
	select {
	case <-ready:
	case <-time.After(redisWait):
		t.Fatalf("subscription to %s not confirmed", channel)
	}
}

// TestPausedRedisDeliversOnce: a batch of publishes a node gives up on
// while Redis is paused (SIGSTOP) and sends again reaches Redis twice; the
// other node delivers every message once.
func TestPausedRedisDeliversOnce(t *testing.T) {
	onFaultBackends(t, func(t *testing.T, redis testutil.RedisServer) {
		rs, counters := nodesOn(t, redis, 2, 0, nil)
		subscribed(t, rs[1], "c")
		redis.Pause()
		const n = 20
		for i := range n {
			rs[0].Publish(&hub.Message{App: "app", Channel: "c", Event: "e", Data: fmt.Sprint(i)})
		}
		testutil.Eventually(t, redisWait, "node A giving up on Redis", func() bool { return rs[0].Ready() != nil })
		redis.Resume()
		testutil.Eventually(t, redisWait, "every message on node B", func() bool { return counters[1].count(fmt.Sprint("e ", n-1)) > 0 })
		testutil.Eventually(t, redisWait, "node A ready", func() bool { return rs[0].Ready() == nil })
		for i := range n {
			if got := counters[1].count(fmt.Sprint("e ", i)); got != 1 {
				t.Fatalf("message %d delivered %d times on node B (%d duplicates dropped)", i, got, rs[1].Duplicates())
			}
		}
		t.Logf("duplicates dropped on node B: %d", rs[1].Duplicates())
	})
}

// TestReadySoonAfterRedis: a degraded node is ready again once a probe
// finds Redis back, not at its next heartbeat. The heartbeat is an hour
// away here, so only a probe can make it ready within the wait, which is
// a guard against hanging, not a budget.
func TestReadySoonAfterRedis(t *testing.T) {
	onFaultBackends(t, func(t *testing.T, redis testutil.RedisServer) {
		rs, _ := nodesOn(t, redis, 1, 3*time.Hour, nil)
		redis.Kill()
		testutil.Eventually(t, redisWait, "the node degraded", func() bool {
			rs[0].Link().Suspect()
			return rs[0].Ready() != nil
		})
		redis.Start()
		back := time.Now()
		testutil.Eventually(t, redisWait, "the node ready again", func() bool { return rs[0].Ready() == nil })
		t.Logf("ready %v after Redis answered again", time.Since(back).Round(time.Millisecond))
	})
}

// TestSlowReplyIsNotAnOutage: Redis busy for 2 s (DEBUG SLEEP) leaves the
// node ready, and a join made meanwhile is answered once Redis is back. On
// a Redis Cluster the busy one is the primary of the channel's slot.
func TestSlowReplyIsNotAnOutage(t *testing.T) {
	onFaultBackends(t, func(t *testing.T, server testutil.RedisServer) {
		rs, _ := nodesOn(t, server, 1, 0, nil)
		redis, ok := server.(*testutil.Redis)
		if c, isCluster := server.(*testutil.RedisCluster); isCluster {
			redis, ok = c.Primary(rs[0].Store.presenceKey("app", "presence-x")), true
		}
		if !ok {
			t.Fatalf("no server to make sleep in %T", server)
		}
		slept := make(chan error, 1)
		go func() { _, err := redis.Command(redisWait, "DEBUG", "SLEEP", "2"); slept <- err }()
		testutil.Eventually(t, redisWait, "Redis asleep", func() bool { return !redis.Pings() })
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		first, err := rs[0].Presence.Join(ctx, "app", "presence-x", hub.Member{ID: "u"}, 0)
		if err != nil || !first {
			t.Fatalf("join while Redis slept: %v %v", first, err)
		}
		if err := <-slept; err != nil {
			t.Fatal(err)
		}
		if err := rs[0].Ready(); err != nil {
			t.Fatalf("one slow reply made the node degraded: %v", err)
		}
	})
}

// TestNoReapAfterOwnOutage: Redis stops with SHUTDOWN SAVE and comes back
// with its data after the nodes' heartbeats have expired, and one node
// reaches it half a TTL after the others (nodes reconnect on their own
// schedules). The first nodes back do not take it for dead. A node that
// dies afterwards is, and only its member is announced gone.
func TestNoReapAfterOwnOutage(t *testing.T) {
	const ttl = 1500 * time.Millisecond
	late := newGatedProxy(t)
	redis, rs, counters := faultNodes(t, 3, ttl, late)
	ctx := context.Background()
	for i, r := range rs {
		subscribed(t, r, "presence-x")
		if _, err := r.Presence.Join(ctx, "app", "presence-x", hub.Member{ID: fmt.Sprint("u", i)}, 0); err != nil {
			t.Fatal(err)
		}
	}
	redis.Shutdown(true)
	testutil.Eventually(t, redisWait, "every node degraded", func() bool { return allReady(rs) == 0 })
	time.Sleep(ttl) // the outage outlasts the heartbeats: that is the point
	late.shut()
	redis.Start()
	testutil.Eventually(t, redisWait, "the first nodes ready", func() bool { return rs[0].Ready() == nil && rs[2].Ready() == nil })
	time.Sleep(ttl / 2) // the late node's own schedule
	late.open()
	testutil.Eventually(t, redisWait, "every node ready", func() bool { return allReady(rs) == len(rs) })
	noneRemoved(t, counters, "u0", "u1", "u2")
	dead := rs[2]
	dead.Halt() // dies without a goodbye: its heartbeat just expires
	gone := `pusher_internal:member_removed {"user_id":"u2"}`
	testutil.Eventually(t, redisWait, "the dead node's member removed", func() bool {
		return counters[0].count(gone) > 0 && counters[1].count(gone) > 0
	})
	noneRemoved(t, counters[:2], "u0", "u1")
	if m, _ := rs[0].Presence.Members(ctx, "app", "presence-x"); len(m) != 2 {
		t.Fatalf("members after the outage: %v, want u0 and u1", m)
	}
}

// noneRemoved fails the test if a node was told that one of users left.
func noneRemoved(t *testing.T, counters []*counter, users ...string) {
	t.Helper()
	for i, c := range counters {
		for _, u := range users {
			if n := c.count(`pusher_internal:member_removed {"user_id":"` + u + `"}`); n > 0 {
				t.Fatalf("node %d was told that %s, still connected, left", i+1, u)
			}
		}
	}
}

// gatedProxy forwards TCP connections to a Redis, except while shut, when
// it refuses them (and cuts those it has).
type gatedProxy struct {
	ln net.Listener
	to string

	mu     sync.Mutex
	closed bool
	conns  []net.Conn
}

func newGatedProxy(t *testing.T) *gatedProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &gatedProxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.shut() })
	go p.serve()
	return p
}

func (p *gatedProxy) url() string { return "redis://" + p.ln.Addr().String() }

// forwardTo sets where connections go.
func (p *gatedProxy) forwardTo(url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.to = url
}

func (p *gatedProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		shut, to := p.closed, p.to
		if !shut {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if shut {
			c.Close()
			continue
		}
		go p.forward(c, to)
	}
}

func (p *gatedProxy) forward(c net.Conn, to string) {
	r, err := net.Dial("tcp", strings.TrimPrefix(to, "redis://"))
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, r)
	p.mu.Unlock()
	go func() { io.Copy(r, c); r.Close() }()
	io.Copy(c, r)
	c.Close()
}

// shut refuses new connections and cuts the open ones.
func (p *gatedProxy) shut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// open forwards connections again.
func (p *gatedProxy) open() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = false
}

// allReady returns how many of rs are ready.
func allReady(rs []*node) int { return clustertest.AllReady(rs) }

package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// The tests below change a Redis Cluster or a Sentinel's primary under
// running nodes: a slot moves to another primary, a primary fails over.
// Each checks that no subscription is lost (every channel delivers again
// without the hub's help) and that the state stays whole, and logs what a
// canary publishing every canaryEvery lost meanwhile (docs/cluster.md
// quotes these figures).

// canaryEvery is how often a canary publishes.
const canaryEvery = 10 * time.Millisecond

// canary publishes numbered events on one channel from one node and
// records when another node receives each.
type canary struct {
	from    *node
	channel string
	stop    chan struct{}
	done    sync.WaitGroup

	mu    sync.Mutex
	sent  int
	got   map[int]time.Time
	ended bool // an end marker, published after the last event, arrived
}

// start has the canary publish until report (or the test's end).
func (c *canary) start(t *testing.T) {
	c.done.Add(1)
	go c.run()
	t.Cleanup(c.halt)
	testutil.Eventually(t, redisWait, "the canary flowing", func() bool { return c.received() > 10 })
}

func (c *canary) run() {
	defer c.done.Done()
	tick := time.NewTicker(canaryEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		c.mu.Lock()
		n := c.sent
		c.sent++
		c.mu.Unlock()
		c.from.Publish(&hub.Message{App: "app", Channel: c.channel, Event: "canary", Data: strconv.Itoa(n)})
	}
}

// deliver is the receiving node's Deliver.
func (c *canary) deliver(m *hub.Message) {
	if m.Event == "canary-end" && m.Channel == c.channel {
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
	}
	if m.Event != "canary" || m.Channel != c.channel {
		return
	}
	n, _ := strconv.Atoi(m.Data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.got[n]; !dup {
		c.got[n] = time.Now()
	}
}

func (c *canary) halt() {
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	c.done.Wait()
}

func (c *canary) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.got)
}

// report stops the canary, publishes end markers on its channel until one
// arrives (the events before it have arrived by then, or are lost), and
// returns how many of the sent events never arrived and the longest time
// between two that did.
func (c *canary) report(t *testing.T) (lost int, gap time.Duration) {
	c.halt()
	c.mu.Lock()
	sent := c.sent
	c.mu.Unlock()
	testutil.Eventually(t, redisWait, "an end marker after the canary's events", func() bool {
		c.from.Publish(&hub.Message{App: "app", Channel: c.channel, Event: "canary-end"})
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.ended
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	var last time.Time
	for i := range sent {
		at, ok := c.got[i]
		if !ok {
			lost++
			continue
		}
		if !last.IsZero() && at.Sub(last) > gap {
			gap = at.Sub(last)
		}
		last = at
	}
	return lost, gap
}

// pair of nodes for a failover test: A publishes, B subscribes; B's
// deliveries go to an inbox and to the canary.
type failoverNodes struct {
	a, b   *node
	inbox  *inbox
	canary *canary
}

func startFailoverNodes(t *testing.T, url, canaryChannel string) *failoverNodes {
	f := &failoverNodes{inbox: &inbox{}}
	c := &canary{channel: canaryChannel, stop: make(chan struct{}), got: make(map[int]time.Time)}
	rs, _ := nodesWith(t, url, 2, 3*time.Second, func(i int, cfg *cluster.Settings) {
		if i == 1 {
			cfg.Deliver = func(m *hub.Message) { f.inbox.Deliver(m); c.deliver(m) }
		}
	})
	f.a, f.b = rs[0], rs[1]
	c.from = f.a
	f.canary = c
	return f
}

// subscribeAll subscribes B to channels and waits for each confirmation.
func (f *failoverNodes) subscribeAll(t *testing.T, channels []string) {
	for _, ch := range channels {
		subscribed(t, f.b, ch)
	}
}

// deliversAll checks that every channel delivers from A to B.
func (f *failoverNodes) deliversAll(t *testing.T, channels []string, round string) {
	for _, ch := range channels {
		testutil.Eventually(t, redisWait, "delivery on "+ch+" "+round, func() bool {
			f.a.Publish(&hub.Message{App: "app", Channel: ch, Event: "probe", Data: round})
			return f.inbox.HasOn(ch, "probe", round)
		})
	}
}

// someChannels returns n channel names, which fall on every primary.
func someChannels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint("ch-", i)
	}
	return out
}

// TestTopicsAreShardedChannels: on a Redis Cluster a channel's topic is a
// sharded channel on the primary of its slot, not a classic channel that
// every node would have to carry.
func TestTopicsAreShardedChannels(t *testing.T) {
	c := testutil.StartRedisCluster(t, 3, 0)
	rs, _ := nodes(t, c.URL(), 1, 0)
	subscribed(t, rs[0], "news")
	topic := rs[0].Store.topic("app", "news")
	out, err := c.Primary(topic).Cli("PUBSUB", "SHARDNUMSUB", topic)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out), "\n1") {
		t.Fatalf("PUBSUB SHARDNUMSUB %s on its primary: %q %v, want 1 subscriber", topic, out, err)
	}
	for _, n := range c.Nodes() {
		if out, _ := n.Cli("PUBSUB", "NUMSUB", topic); !strings.HasSuffix(strings.TrimSpace(out), "\n0") {
			t.Fatalf("a classic subscription to %s on %s: %q", topic, n.Addr(), out)
		}
	}
}

// TestChannelKeysShareTheTopicSlot: every key of a channel hashes to its
// topic's slot, and every node-level key to one slot, as Redis Cluster
// computes slots.
func TestChannelKeysShareTheTopicSlot(t *testing.T) {
	c := testutil.StartRedisCluster(t, 3, 0)
	r := &Redis{cfg: &cluster.Settings{Prefix: "roost"}}
	topicSlot := c.Slot(r.topic("app-1", "presence-room.1"))
	for _, k := range []string{
		r.presenceKey("app-1", "presence-room.1"), r.cacheKey("app-1", "presence-room.1"),
		r.webhookKey("vacated:app-1:presence-room.1"), r.webhookKey("removed:app-1:presence-room.1:user:7"),
	} {
		if got := c.Slot(k); got != topicSlot {
			t.Errorf("%s on slot %d, its topic on %d", k, got, topicSlot)
		}
	}
	for _, k := range []string{r.topic("app-1", "presence-room.1"), r.topic("a", "b"), "no-tag", "{}x", "a{b}c{d}", "x{}{y}", "{"} {
		if got, want := int(slot(k)), c.Slot(k); got != want {
			t.Errorf("slot(%q) = %d, Redis says %d", k, got, want)
		}
	}
	nodeSlot := c.Slot(r.nodeKey("nodes"))
	for _, k := range []string{r.nodeKey("node", "12"), r.nodeKey("reap", "12"), r.nodeKey("node-presence", "12")} {
		if got := c.Slot(k); got != nodeSlot {
			t.Errorf("%s on slot %d, the node list on %d", k, got, nodeSlot)
		}
	}
}

// TestReshardLosesNoSubscription: a channel's slot moves to another
// primary with its keys, one slot as a reshard moves each (CLUSTER SETSLOT,
// MIGRATE), or all the primary's slots by redis-cli --cluster reshard,
// while a canary publishes on it; the node subscribes again by itself, and
// the channel's presence stays whole.
func TestReshardLosesNoSubscription(t *testing.T) {
	for _, whole := range []bool{false, true} {
		name := map[bool]string{false: "one slot", true: "redis-cli reshard"}[whole]
		t.Run(name, func(t *testing.T) {
			c := testutil.StartRedisCluster(t, 3, 0)
			f := startFailoverNodes(t, c.URL(), "moving")
			channels := append(someChannels(12), "moving", "presence-moving")
			f.subscribeAll(t, channels)
			ctx := context.Background()
			f.a.Presence.Join(ctx, "app", "presence-moving", hub.Member{ID: "u1"}, 0)
			f.canary.start(t)
			topic := f.a.Store.topic("app", "moving")
			from := c.Primary(topic)
			to := c.Primaries[0]
			if to == from {
				to = c.Primaries[1]
			}
			moved := time.Now()
			if whole {
				c.Reshard(from, to)
			} else {
				c.MoveSlot(c.Slot(topic), from, to)
			}
			if c.Primary(topic) != to {
				t.Fatal("the channel's slot did not move")
			}
			t.Logf("%s: moved in %v", name, time.Since(moved))
			f.deliversAll(t, channels, "after the move")
			lost, gap := f.canary.report(t)
			t.Logf("%s: canary lost %d of %d events, longest gap %v", name, lost, f.canary.sent, gap)
			if m, _ := f.b.Presence.Members(ctx, "app", "presence-moving"); len(m) != 1 || m[0].ID != "u1" {
				t.Fatalf("presence after the move: %+v", m)
			}
		})
	}
}

// failoverCase is one way a primary hands its slots to its replica.
type failoverCase struct {
	name string
	do   func(t *testing.T, c *testutil.RedisCluster, primary *testutil.Redis)
}

var clusterFailovers = []failoverCase{
	{"CLUSTER FAILOVER", func(t *testing.T, c *testutil.RedisCluster, primary *testutil.Redis) {
		replica := c.ReplicaOf(primary)
		if out, err := replica.Cli("CLUSTER", "FAILOVER"); err != nil || !strings.HasPrefix(out, "OK") {
			t.Fatalf("CLUSTER FAILOVER: %q %v", out, err)
		}
	}},
	{"kill -9", func(t *testing.T, c *testutil.RedisCluster, primary *testutil.Redis) { primary.Kill() }},
}

// TestClusterFailoverLosesNoSubscription: the primary of a channel's slot
// hands over to its replica, by CLUSTER FAILOVER or by dying (kill -9),
// while a canary publishes on the channel; every channel delivers again,
// and the presence members and counts written on the old primary are whole
// (the nodes write their shares again after a broken primary).
func TestClusterFailoverLosesNoSubscription(t *testing.T) {
	for _, fc := range clusterFailovers {
		t.Run(fc.name, func(t *testing.T) {
			c := testutil.StartRedisCluster(t, 3, 1)
			f := startFailoverNodes(t, c.URL(), "failing")
			channels := append(someChannels(12), "failing", "presence-failing")
			f.subscribeAll(t, channels)
			ctx := context.Background()
			f.a.Presence.Join(ctx, "app", "presence-failing", hub.Member{ID: "u1"}, 0)
			f.b.Presence.Join(ctx, "app", "presence-failing", hub.Member{ID: "u2"}, 0)
			f.a.Counts.Subscribed("app", "presence-failing", 1)
			f.canary.start(t)
			primary := c.Primary(f.a.Store.topic("app", "failing"))
			began := time.Now()
			fc.do(t, c, primary)
			c.WaitOK()
			t.Logf("cluster ok again %v after the %s", time.Since(began), fc.name)
			f.deliversAll(t, channels, "after the failover")
			lost, gap := f.canary.report(t)
			t.Logf("%s: canary lost %d of %d events, longest gap %v", fc.name, lost, f.canary.sent, gap)
			testutil.Eventually(t, redisWait, "presence and counts whole", func() bool {
				m, _ := f.b.Presence.Members(ctx, "app", "presence-failing")
				n, _ := f.b.Counts.Count(ctx, "app", "presence-failing")
				return len(m) == 2 && n == 1
			})
		})
	}
}

// TestSentinelFailoverLosesNoSubscription: the sentinel promotes the
// replica (on demand, or after the primary died) while a canary publishes;
// the nodes follow the new primary, every channel delivers again and the
// presence members are whole.
func TestSentinelFailoverLosesNoSubscription(t *testing.T) {
	for _, kill := range []bool{false, true} {
		name := map[bool]string{false: "SENTINEL FAILOVER", true: "kill -9"}[kill]
		t.Run(name, func(t *testing.T) {
			s := testutil.StartSentinel(t)
			f := startFailoverNodes(t, s.URL(), "failing")
			channels := append(someChannels(4), "failing", "presence-failing")
			f.subscribeAll(t, channels)
			ctx := context.Background()
			f.a.Presence.Join(ctx, "app", "presence-failing", hub.Member{ID: "u1"}, 0)
			f.b.Presence.Join(ctx, "app", "presence-failing", hub.Member{ID: "u2"}, 0)
			f.canary.start(t)
			began := time.Now()
			if kill {
				s.Primary.Kill()
				s.WaitPrimary(s.Replica)
			} else {
				s.Failover()
			}
			t.Logf("sentinel names the new primary %v after the %s", time.Since(began), name)
			// Sentinel turns the old primary into a replica, and so cuts its
			// subscribers off, only when it next looks (10 s); the node must
			// not wait for that.
			topic := f.b.Store.topic("app", "failing")
			testutil.Eventually(t, 5*checkEvery, "node B subscribed on the new primary", func() bool {
				out, _ := s.Replica.Cli("PUBSUB", "NUMSUB", topic)
				return strings.HasSuffix(strings.TrimSpace(out), "\n1")
			})
			f.deliversAll(t, channels, "after the failover")
			lost, gap := f.canary.report(t)
			t.Logf("%s: canary lost %d of %d events, longest gap %v", name, lost, f.canary.sent, gap)
			testutil.Eventually(t, redisWait, "presence whole", func() bool {
				m, _ := f.b.Presence.Members(ctx, "app", "presence-failing")
				return len(m) == 2
			})
		})
	}
}

package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// onBackends runs a test on each Redis backend (testutil.RedisBackends),
// as subtests: the machine's Redis, a private Redis Cluster, a private
// Sentinel.
func onBackends(t *testing.T, f func(t *testing.T, url string)) {
	for _, b := range testutil.RedisBackends {
		t.Run(b.Name, func(t *testing.T) { f(t, b.Start(t).URL) })
	}
}

// node is a cluster node on Redis, with the parts the tests look at.
type node = clustertest.Node[*Redis]

// start opens a node on the Redis at url; an empty prefix is "roost".
func start(t testing.TB, url string, s cluster.Settings) *node {
	t.Helper()
	if s.Prefix == "" {
		s.Prefix = "roost"
	}
	return clustertest.Start(t, url, s, open)
}

// inbox records delivered messages.
type inbox = clustertest.Inbox

// nodes starts n cluster nodes on url sharing a fresh prefix.
func nodes(t *testing.T, url string, n int, ttl time.Duration) ([]*node, []*inbox) {
	return nodesWith(t, url, n, ttl, func(int, *cluster.Settings) {})
}

// nodesWith is nodes with each node's Config changed by set first.
func nodesWith(t testing.TB, url string, n int, ttl time.Duration, set func(i int, c *cluster.Settings)) ([]*node, []*inbox) {
	prefix := fmt.Sprintf("test-%d", rand.Uint64())
	rs, boxes := make([]*node, n), make([]*inbox, n)
	for i := range rs {
		boxes[i] = &inbox{}
		cfg := cluster.Settings{Prefix: prefix, Node: uint64(i + 1), Apps: []string{"app"}, Deliver: boxes[i].Deliver, NodeTTL: ttl}
		set(i, &cfg)
		rs[i] = start(t, url, cfg)
	}
	t.Cleanup(func() {
		for _, r := range rs {
			r.Close()
		}
		if url == testutil.MachineRedisURL { // a private backend dies with the test
			cleanup(prefix)
		}
	})
	return rs, boxes
}

// cleanup deletes a test's keys from the machine's Redis.
func cleanup(prefix string) {
	opts, _ := redis.ParseURL(testutil.MachineRedisURL)
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	keys, _ := c.Keys(ctx, prefix+":*").Result()
	if len(keys) > 0 {
		c.Del(ctx, keys...)
	}
}

// redisWait bounds every wait for the cluster to converge over Redis.
const redisWait = 30 * time.Second

func TestPresenceFirstAndLastAcrossNodes(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		clustertest.PresenceFirstAndLast(t, rs[0].Presence, rs[1].Presence)
	})
}

func TestPresenceLimitIsClusterWide(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		clustertest.PresenceLimit(t, rs[0].Presence, rs[1].Presence)
	})
}

func TestMessagesCrossNodesOnlyWhenSubscribed(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, boxes := nodes(t, url, 2, 0)
		rs[1].Subscribe("app", "news", func() {})
		testutil.Eventually(t, redisWait, "subscription", func() bool {
			rs[0].Publish(&hub.Message{App: "app", Channel: "news", Event: "probe", Data: "x"})
			return boxes[1].Has("probe", "x")
		})
		rs[0].Publish(&hub.Message{App: "app", Channel: "other", Event: "e", Data: "y"})
		rs[0].Publish(&hub.Message{App: "app", Channel: "news", Event: "e", Data: "z"})
		testutil.Eventually(t, redisWait, "delivery", func() bool { return boxes[1].Has("e", "z") })
		if boxes[1].Has("e", "y") {
			t.Fatal("a node received a channel it has no subscriber on")
		}
		if !boxes[0].Has("e", "z") {
			t.Fatal("the publishing node did not deliver locally")
		}
	})
}

func TestCountsAndCacheAcrossNodes(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		clustertest.CountsAndCacheAcrossNodes(t, rs[0], rs[1], redisWait)
	})
}

func TestDeadNodeIsReaped(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, boxes := nodes(t, url, 2, 900*time.Millisecond)
		clustertest.DeadNodeIsReaped(t, rs[0], rs[1], boxes[0], redisWait)
	})
}

// TestReadyMeansSubscribed: once Subscribe says ready, an event published on
// another node is never lost.
func TestReadyMeansSubscribed(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, boxes := nodes(t, url, 2, 0)
		clustertest.ReadyMeansSubscribed(t, rs[0], rs[1], boxes[1], redisWait)
	})
}

func TestOutboxKeepsEntries(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		clustertest.OutboxKeepsEntries(t, rs[0], rs[1])
	})
}

func TestDeadNodesOutboxIsTakenOver(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		took := &clustertest.Adoptions{}
		rs, _ := nodesWith(t, url, 2, 900*time.Millisecond, func(i int, c *cluster.Settings) {
			if i == 0 {
				c.Adopt = took.Adopt
			}
		})
		clustertest.DeadNodesOutboxIsTakenOver(t, rs[0], rs[1], took, redisWait)
	})
}

func TestCountBatchMadeOnce(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 1, 0)
		clustertest.CountBatchMadeOnce(t, rs[0])
	})
}

// TestReapedNodeHasClientsChecked: once a dead node is reaped, every node
// left checks what its clients were told (Reconcile, which sends again the
// subscription counts that held the dead node's share), not only the one
// that reaped it.
func TestReapedNodeHasClientsChecked(t *testing.T) {
	var checks [2]atomic.Int32
	rs, _ := nodesWith(t, testutil.MachineRedisURL, 3, 3*time.Second, func(i int, c *cluster.Settings) {
		if i < len(checks) {
			c.Reconcile = func(context.Context, bool) { checks[i].Add(1) }
		}
	})
	ctx := context.Background()
	rs[2].Counts.Subscribed("app", "x", 1)
	rs[2].FlushCounts()
	rs[2].Halt()
	testutil.Eventually(t, redisWait, "the dead node's count gone", func() bool {
		n, err := rs[0].Counts.Count(ctx, "app", "x")
		return err == nil && n == 0
	})
	for i := range checks {
		checks[i].Store(0) // the checks of the nodes' start are long over (a reap waits a node TTL)
	}
	testutil.Eventually(t, redisWait, "both nodes left checking their clients", func() bool {
		return checks[0].Load() > 0 && checks[1].Load() > 0
	})
}

func TestTallyAcrossNodes(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 3, 0)
		clustertest.TallyAcrossNodes(t, rs[0], rs[1], rs[2], redisWait)
	})
}

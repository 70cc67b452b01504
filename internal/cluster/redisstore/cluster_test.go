package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
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
func nodesWith(t *testing.T, url string, n int, ttl time.Duration, set func(i int, c *cluster.Settings)) ([]*node, []*inbox) {
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

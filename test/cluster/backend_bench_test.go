package cluster

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/natsstore"
	"github.com/roostproject/roost/internal/cluster/redisstore"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// The same operations on each backend, in one run, so that their costs can
// be quoted as a ratio (docs/cluster.md, "NATS"): nodes in this process,
// on the machine's Redis and NATS, under a fresh prefix each.

const benchRedisURL = "redis://127.0.0.1:6379"

// quiet is the benchmarks' log: a node's lines would break the results'.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// benchNode is what the benchmarks use of a node, Redis's or NATS's.
type benchNode interface {
	hub.Broker
	State() hub.State
	Close() error
}

// benchBackend starts node of a fresh cluster under prefix on a backend.
type benchBackend struct {
	name  string
	start func(b *testing.B, prefix string, node uint64, deliver func(*hub.Message)) benchNode
}

var benchBackends = []benchBackend{{"redis", startRedisNode}, {"nats", startNATSNode}}

func startRedisNode(b *testing.B, prefix string, node uint64, deliver func(*hub.Message)) benchNode {
	b.Helper()
	opts, _ := redis.ParseURL(benchRedisURL)
	c := redis.NewClient(opts)
	if err := c.Ping(context.Background()).Err(); err != nil {
		c.Close()
		testutil.Needs(b, "no redis at %s (%v)", benchRedisURL, err)
	}
	b.Cleanup(func() {
		defer c.Close()
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	n, err := cluster.Open(cluster.Settings{Prefix: prefix, Node: node, Apps: []string{"app"}, Deliver: deliver, Logger: quiet}, redisstore.Backend(benchRedisURL))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	return n
}

func startNATSNode(b *testing.B, prefix string, node uint64, deliver func(*hub.Message)) benchNode {
	b.Helper()
	url := testutil.NeedsMachineNATS(b)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		deleteNATSBuckets(ctx, url, prefix)
	})
	n, err := cluster.Open(cluster.Settings{Prefix: prefix, Node: node, Apps: []string{"app"}, Deliver: deliver, Logger: quiet}, natsstore.Backend(url))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	return n
}

// readyNode waits until a node's backend answers.
func readyNode(b *testing.B, n benchNode) {
	b.Helper()
	ready := n.(interface{ Ready() error })
	testutil.Eventually(b, stateChange, "the node ready", func() bool { return ready.Ready() == nil })
}

// BenchmarkPresenceJoinLeave: one presence join and its leave on a channel
// with another member, the round trips a presence subscription and its end
// cost the node.
func BenchmarkPresenceJoinLeave(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			n := be.start(b, prefixFor("bench-presence"), 1, func(*hub.Message) {})
			readyNode(b, n)
			p, ctx := n.State().Presence, context.Background()
			if _, err := p.Join(ctx, "app", "presence-bench", hub.Member{ID: "resident"}, 0); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				user := strconv.Itoa(i % 100)
				if _, err := p.Join(ctx, "app", "presence-bench", hub.Member{ID: user}, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Leave(ctx, "app", "presence-bench", user); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCrossNodePublish: one message published on node A until node B
// has delivered it, one at a time: the latency between nodes.
func BenchmarkCrossNodePublish(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) {
			prefix := prefixFor("bench-publish")
			got := make(chan struct{}, 1)
			a := be.start(b, prefix, 1, func(*hub.Message) {})
			to := be.start(b, prefix, 2, func(*hub.Message) { got <- struct{}{} })
			readyNode(b, a)
			readyNode(b, to)
			subscribed := make(chan struct{})
			to.Subscribe("app", "bench", func() { close(subscribed) })
			<-subscribed
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				a.Publish(&hub.Message{App: "app", Channel: "bench", Event: "e", Data: "x"})
				<-got
			}
		})
	}
}

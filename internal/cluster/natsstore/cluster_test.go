package natsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// natsWait bounds every wait for the cluster to converge over NATS.
const natsWait = 30 * time.Second

// needNATS skips (or, in CI, fails) when the machine's NATS with JetStream
// is not up.
func needNATS(t testing.TB, url string) {
	t.Helper()
	nc, err := nats.Connect(url, nats.Timeout(2*time.Second))
	if err == nil {
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = js.AccountInfo(ctx)
	}
	if err != nil {
		testutil.Needs(t, "no NATS with JetStream at %s (%v); the NATS cluster tests need it", url, err)
	}
}

// node is a cluster node on NATS, with the parts the tests look at.
type node = clustertest.Node[*NATS]

// start opens a node on the NATS at url.
func start(t testing.TB, url string, s cluster.Settings) *node {
	t.Helper()
	return clustertest.Start(t, url, s, open)
}

// inbox records delivered messages.
type inbox = clustertest.Inbox

// nodes starts n nodes on the machine's NATS under a fresh prefix.
func nodes(t *testing.T, n int, ttl time.Duration) ([]*node, []*inbox) {
	return nodesAt(t, testutil.MachineNATSURL, n, func(_ int, c *cluster.Settings) { c.NodeTTL = ttl })
}

// nodesAt starts n nodes on url under a fresh prefix, each Config changed
// by set first, and removes the prefix's buckets when the test ends.
func nodesAt(t testing.TB, url string, n int, set func(i int, c *cluster.Settings)) ([]*node, []*inbox) {
	t.Helper()
	needNATS(t, url)
	prefix := fmt.Sprintf("test-%d", rand.Uint64())
	ns, boxes := make([]*node, n), make([]*inbox, n)
	for i := range ns {
		boxes[i] = &inbox{}
		cfg := cluster.Settings{Prefix: prefix, Node: uint64(i + 1), Apps: []string{"app"}, Deliver: boxes[i].Deliver}
		set(i, &cfg)
		ns[i] = start(t, url, cfg)
	}
	t.Cleanup(func() {
		for _, node := range ns {
			node.Close()
		}
		deleteBuckets(url, prefix)
	})
	testutil.Eventually(t, natsWait, "every node ready", func() bool { return allReady(ns) == n })
	return ns, boxes
}

func allReady(ns []*node) int { return clustertest.AllReady(ns) }

// deleteBuckets removes every bucket of prefix.
func deleteBuckets(url, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	Purge(ctx, url, prefix)
}

func TestPresenceFirstAndLastAcrossNodes(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	clustertest.PresenceFirstAndLast(t, ns[0].Presence, ns[1].Presence)
}

func TestPresenceLimitIsClusterWide(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	clustertest.PresenceLimit(t, ns[0].Presence, ns[1].Presence)
}

// TestTransitionsExactlyOnce has every node make the same user's first
// connection at once, then its last: compare-and-set must give the 0 -> 1
// and the 1 -> 0 to exactly one node each.
func TestTransitionsExactlyOnce(t *testing.T) {
	const n, rounds = 4, 10
	ns, _ := nodes(t, n, 0)
	ctx := context.Background()
	for r := range rounds {
		channel := fmt.Sprint("presence-race-", r)
		var firsts, lasts, signedIn, signedOut atomic.Int32
		race(ns, func(node *node) {
			if first, err := node.Presence.Join(ctx, "app", channel, hub.Member{ID: "u"}, 0); err == nil && first {
				firsts.Add(1)
			}
			if first, err := node.Users.SignIn(ctx, "app", channel); err == nil && first {
				signedIn.Add(1)
			}
		})
		race(ns, func(node *node) {
			if last, err := node.Presence.Leave(ctx, "app", channel, "u"); err == nil && last {
				lasts.Add(1)
			}
			if last, err := node.Users.SignOut(ctx, "app", channel); err == nil && last {
				signedOut.Add(1)
			}
		})
		if firsts.Load() != 1 || lasts.Load() != 1 || signedIn.Load() != 1 || signedOut.Load() != 1 {
			t.Fatalf("round %d: member_added %d, member_removed %d, online %d, offline %d times; want each once",
				r, firsts.Load(), lasts.Load(), signedIn.Load(), signedOut.Load())
		}
	}
}

// TestOccupiedVacatedExactlyOnce has every node gain a channel's first
// subscriber and flush at once, then lose it: channel_occupied and
// channel_vacated are each reported by one node.
func TestOccupiedVacatedExactlyOnce(t *testing.T) {
	const n, rounds = 4, 10
	obs := &clustertest.Occupancy{}
	ns, _ := nodesAt(t, testutil.MachineNATSURL, n, func(_ int, c *cluster.Settings) { c.Observer = obs })
	for r := range rounds {
		channel := fmt.Sprint("race-", r)
		for _, d := range []int{1, -1} {
			race(ns, func(node *node) {
				node.Counts.Subscribed("app", channel, d)
				node.Counts.Flush()
			})
			// A flush of the ticker may still be writing; every +1 is
			// written before the first -1.
			want := map[int]int{1: n, -1: 0}[d]
			testutil.Eventually(t, natsWait, "counts written", func() bool {
				h, _, err := read(context.Background(), ns[0].Store.kv.Load().counts, key("app", channel))
				return err == nil && (h[""] == nil && want == 0 || h[""] != nil && h[""].total() == want)
			})
		}
		if o, v := obs.Occupied.Load(), obs.Vacated.Load(); o != int32(r+1) || v != int32(r+1) {
			t.Fatalf("after round %d: channel_occupied %d, channel_vacated %d times; want %d each", r, o, v, r+1)
		}
	}
}

// race runs f on every node at once.
func race(ns []*node, f func(*node)) {
	var wg sync.WaitGroup
	for _, node := range ns {
		wg.Add(1)
		go func() { defer wg.Done(); f(node) }()
	}
	wg.Wait()
}

func TestMessagesCrossNodesOnlyWhenSubscribed(t *testing.T) {
	ns, boxes := nodes(t, 2, 0)
	subscribe(ns[1], "news.sport")
	away := &hub.Message{App: "app", Channel: "other", Event: "e", Data: "y"}
	sport := &hub.Message{App: "app", Channel: "news.sport", Event: "e", Data: "z"}
	arrivesWithout(t, ns[0], boxes[1], away, sport, "a node received a channel it has no subscriber on")
	if !boxes[0].Has("e", "z") || boxes[0].Count("e", "z") != 1 {
		t.Fatalf("the publishing node delivered its own event %d times, want once (locally, not its echo)", boxes[0].Count("e", "z"))
	}
	// After Unsubscribe, and a later subscription confirmed (NATS takes a
	// node's changes in order), the channel's events stay away.
	ns[1].Unsubscribe("app", "news.sport")
	subscribe(ns[1], "probe")
	after := &hub.Message{App: "app", Channel: "news.sport", Event: "after", Data: "w"}
	probe := &hub.Message{App: "app", Channel: "probe", Event: "p", Data: "p"}
	arrivesWithout(t, ns[0], boxes[1], after, probe, "a node still received a channel after its last subscriber left")
}

// arrivesWithout publishes away and then probe on from, waits until box has
// probe, and fails with why if it has away too: probe, published after it,
// shows that away had its chance to arrive.
func arrivesWithout(t *testing.T, from *node, box *inbox, away, probe *hub.Message, why string) {
	t.Helper()
	from.Publish(away)
	from.Publish(probe)
	testutil.Eventually(t, natsWait, "delivery of "+probe.Channel, func() bool { return box.Has(probe.Event, probe.Data) })
	if box.Has(away.Event, away.Data) {
		t.Fatal(why)
	}
}

// TestReadyMeansSubscribed: once Subscribe says ready, an event published on
// another node is never lost.
func TestReadyMeansSubscribed(t *testing.T) {
	ns, boxes := nodes(t, 2, 0)
	clustertest.ReadyMeansSubscribed(t, ns[0], ns[1], boxes[1], natsWait)
}

func TestCountsAndCacheAcrossNodes(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	clustertest.CountsAndCacheAcrossNodes(t, ns[0], ns[1], natsWait)
}

func TestDeadNodeIsReaped(t *testing.T) {
	ns, boxes := nodes(t, 2, 900*time.Millisecond)
	clustertest.DeadNodeIsReaped(t, ns[0], ns[1], boxes[0], natsWait)
}

// TestPendingIsSharedAndTokened: see clustertest.PendingIsSharedAndTokened.
func TestPendingIsSharedAndTokened(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	clustertest.PendingIsSharedAndTokened(t, ns[0].WebhookPending(), ns[1].WebhookPending())
}

// BenchmarkCountsFlush: a flush of 100 changed channels (their first
// subscriber, then their last), writing one channel at a time against
// flushParallel at once, in the same run.
func BenchmarkCountsFlush(b *testing.B) {
	for _, parallel := range []int{1, flushParallel} {
		b.Run(fmt.Sprint("parallel-", parallel), func(b *testing.B) {
			ns, _ := nodesAt(b, testutil.MachineNATSURL, 1, clustertest.Quiet)
			ns[0].Store.parallel = parallel
			clustertest.CountsFlush(b, ns[0])
		})
	}
}

// TestStaleGuessNeverDecides: a node's guess of a channel's value (what it
// last wrote) is stale once another node writes; a change made on it is
// refused and made again on what is read, and a guess that says the
// channel is full is checked before the join is refused.
func TestStaleGuessNeverDecides(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	a, b := ns[0], ns[1]
	ctx := context.Background()
	join := func(n *node, user string) error {
		_, err := n.Presence.Join(ctx, "app", "presence-g", hub.Member{ID: user}, 2)
		return err
	}
	if join(a, "u1") != nil || join(b, "u2") != nil {
		t.Fatal("the first two members were refused")
	}
	// a's guess holds u1 alone; the channel is full.
	if err := join(a, "u3"); err != hub.ErrChannelFull {
		t.Fatalf("join on a stale guess of a full channel: %v, want ErrChannelFull", err)
	}
	if _, err := b.Presence.Leave(ctx, "app", "presence-g", "u2"); err != nil {
		t.Fatal(err)
	}
	// A guess that the channel is full, from an old revision: not trusted.
	full, _ := json.Marshal(hash{"u1": {N: map[string]int{"1": 1}}, "u2": {N: map[string]int{"2": 1}}})
	kv := a.Store.kv.Load().presence
	a.Store.guesses.keep(kv, key("app", "presence-g"), full, 1, nil)
	if err := join(a, "u3"); err != nil {
		t.Fatalf("join with a stale guess that the channel is full: %v, want it to succeed", err)
	}
	if got := members(b, "presence-g"); got != "[u1 u3]" {
		t.Fatalf("members %s, want [u1 u3]", got)
	}
}

func TestOutboxKeepsEntries(t *testing.T) {
	ns, _ := nodes(t, 2, 0)
	clustertest.OutboxKeepsEntries(t, ns[0], ns[1])
}

func TestDeadNodesOutboxIsTakenOver(t *testing.T) {
	took := &clustertest.Adoptions{}
	ns, _ := nodesAt(t, testutil.MachineNATSURL, 2, func(i int, c *cluster.Settings) {
		c.NodeTTL = 900 * time.Millisecond
		if i == 0 {
			c.Adopt = took.Adopt
		}
	})
	clustertest.DeadNodesOutboxIsTakenOver(t, ns[0], ns[1], took, natsWait)
}

func TestCountBatchMadeOnce(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	clustertest.CountBatchMadeOnce(t, ns[0])
}

func TestTallyAcrossNodes(t *testing.T) {
	ns, _ := nodes(t, 3, 0)
	clustertest.TallyAcrossNodes(t, ns[0], ns[1], ns[2], natsWait)
}

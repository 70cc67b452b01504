package cluster

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/testutil"
)

// The cluster behaviours every backend must show alike, run on each row
// of testutil.Backends: the machine's Redis, a private Redis Cluster of
// three primaries, a private NATS with JetStream.

// forgetPrefix removes, when the test ends, what the nodes left under
// prefix on a shared backend (the machine's Redis or NATS); a private one
// dies with the test.
func forgetPrefix(t *testing.T, r testutil.Reach, prefix string) {
	if r.Private {
		return
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		switch r.PrefixFlag {
		case "--nats-prefix":
			deleteNATSBuckets(ctx, r.URL, prefix)
		case "--redis-prefix":
			deleteRedisKeys(ctx, r.URL, prefix)
		}
	})
}

// deleteNATSBuckets removes the key-value buckets of prefix.
func deleteNATSBuckets(ctx context.Context, url, prefix string) {
	nc, err := nats.Connect(url, nats.Timeout(time.Second))
	if err != nil {
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	for name := range js.KeyValueStoreNames(ctx).Name() {
		if strings.HasPrefix(name, prefix+"_") {
			js.DeleteKeyValue(ctx, name)
		}
	}
}

// deleteRedisKeys removes the keys of prefix from a single Redis.
func deleteRedisKeys(ctx context.Context, url, prefix string) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return
	}
	rc := redis.NewClient(opt)
	defer rc.Close()
	iter := rc.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		rc.Del(ctx, iter.Val())
	}
}

// departureRecorded reports whether a node under prefix has a departure
// recorded in its outbox, which it writes after the departure's hold.
func departureRecorded(r testutil.Reach, prefix string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var keys []string
	if r.PrefixFlag == "--nats-prefix" {
		keys = natsOutboxKeys(ctx, r.URL, prefix)
	} else {
		keys = redisOutboxKeys(ctx, r.URL, prefix)
	}
	return slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, "departure-") })
}

// redisOutboxKeys lists the entry keys of every node's outbox under
// prefix on a single Redis.
func redisOutboxKeys(ctx context.Context, url, prefix string) []string {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil
	}
	rc := redis.NewClient(opt)
	defer rc.Close()
	var keys []string
	for iter := rc.Scan(ctx, 0, prefix+":outbox:*", 100).Iterator(); iter.Next(ctx); {
		fields, _ := rc.HKeys(ctx, iter.Val()).Result()
		keys = append(keys, fields...)
	}
	return keys
}

// natsOutboxKeys lists the keys of the outbox bucket under prefix (node
// and entry key).
func natsOutboxKeys(ctx context.Context, url, prefix string) []string {
	nc, err := nats.Connect(url, nats.Timeout(time.Second))
	if err != nil {
		return nil
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(ctx, prefix+"_outbox")
	if err != nil {
		return nil
	}
	keys, _ := kv.Keys(ctx)
	return keys
}

// TestPresenceAcrossNodes: two tabs of one user on two nodes are one
// member; member_removed comes when the last tab closes; the HTTP API of
// either node lists the cluster's members and counts.
func TestPresenceAcrossNodes(t *testing.T) {
	onBackends(t, func(t *testing.T, b testutil.Backend) {
		d := newDuoOn(t, "roost-presence-across", b)
		d.waitReady(http.StatusOK, "ready")
		const channel = "presence-across"
		watcher := dial(t, d.a, "watcher")
		subscribePresence(t, watcher, channel, "w")
		tabB := dial(t, d.b, "u tab 1")
		subscribePresence(t, tabB, channel, "u")
		added := inChannel(channel, "pusher_internal:member_added")
		if _, ok := watcher.Await(testutil.ReadTimeout, added); !ok {
			t.Fatalf("member_added for u on B never reached A; %s", watcher.Describe())
		}
		tabA := dial(t, d.a, "u tab 2")
		subscribePresence(t, tabA, channel, "u")
		if _, ok := watcher.Await(time.Second, added); ok {
			t.Fatalf("a second tab of u counted as a new member; %s", watcher.Describe())
		}
		for _, n := range []*node{d.a, d.b} {
			if got := fmt.Sprint(d.users(n, channel)); got != "[u w]" {
				t.Fatalf("users from %s = %s, want [u w]", n.name, got)
			}
			if got := d.subscriptions(n, channel); got != 3 {
				t.Fatalf("subscription_count from %s = %d, want 3", n.name, got)
			}
		}
		removed := inChannel(channel, "pusher_internal:member_removed")
		tabB.Conn.Close()
		if _, ok := watcher.Await(time.Second, removed); ok {
			t.Fatalf("member_removed while u still has a tab on A; %s", watcher.Describe())
		}
		tabA.Conn.Close()
		if _, ok := watcher.Await(testutil.ReadTimeout, removed); !ok {
			t.Fatalf("no member_removed after u's last tab closed; %s", watcher.Describe())
		}
	})
}

// TestKilledNodeIsReaped: a node killed with SIGKILL says no goodbye;
// when its heartbeat lapses the survivor removes its member, announces it
// once, and its subscriptions leave the counts.
func TestKilledNodeIsReaped(t *testing.T) {
	onBackends(t, func(t *testing.T, b testutil.Backend) {
		d := newDuoOn(t, "roost-kill", b)
		d.waitReady(http.StatusOK, "ready")
		const channel = "presence-kill"
		watcher := dial(t, d.b, "watcher")
		subscribePresence(t, watcher, channel, "w")
		ghost := dial(t, d.a, "ghost")
		subscribePresence(t, ghost, channel, "ghost")
		for i := range 3 {
			ghost.Subscribe("ghost-" + strconv.Itoa(i))
		}
		added := inChannel(channel, "pusher_internal:member_added")
		if _, ok := watcher.Await(testutil.ReadTimeout, added); !ok {
			t.Fatalf("member_added for ghost never reached B; %s", watcher.Describe())
		}
		d.a.stop()
		removed := inChannel(channel, "pusher_internal:member_removed")
		if _, ok := watcher.Await(2*nodeTTL+stateChange, removed); !ok {
			t.Fatalf("the killed node's member was not removed; %s", watcher.Describe())
		}
		if got := fmt.Sprint(d.users(d.b, channel)); got != "[w]" {
			t.Fatalf("users after the reaping = %s, want [w]", got)
		}
		if got := d.subscriptions(d.b, channel); got != 1 {
			t.Fatalf("subscription_count after the reaping = %d, want 1", got)
		}
		var left int
		if !testutil.Poll(stateChange, func() bool { left = d.subscriptions(d.b, "ghost-0"); return left == 0 }) {
			t.Fatalf("subscription_count of the killed node's channel ghost-0 = %d, want 0", left)
		}
		if _, ok := watcher.Await(time.Second, removed); ok {
			t.Fatalf("member_removed announced twice; %s", watcher.Describe())
		}
	})
}

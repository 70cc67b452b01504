package cluster

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/testutil"
)

// The cluster behaviours over NATS (docs/cluster.md, "NATS"): real roost
// processes joined through the machine's NATS with JetStream, each test
// under a prefix of its own whose buckets it removes at the end.

// natsDuo starts two nodes on the machine's NATS under a fresh prefix.
func natsDuo(t *testing.T, name string) *duo {
	url := testutil.NeedsMachineNATS(t)
	prefix := prefixFor(name)
	t.Cleanup(func() { deleteNATSBuckets(url, prefix) })
	bin := buildRoost(t)
	d := &duo{t: t}
	d.a = startNodeOn(t, bin, "node A", testutil.NATSFlags(url, prefix)...)
	d.b = startNodeOn(t, bin, "node B", testutil.NATSFlags(url, prefix)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\n%s", d.a.logs(), d.b.logs())
		}
	})
	d.waitReady(http.StatusOK, "ready")
	return d
}

// deleteNATSBuckets removes the key-value buckets of prefix.
func deleteNATSBuckets(url, prefix string) {
	nc, err := nats.Connect(url, nats.Timeout(time.Second))
	if err != nil {
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name := range js.KeyValueStoreNames(ctx).Name() {
		if len(name) > len(prefix) && name[:len(prefix)+1] == prefix+"_" {
			js.DeleteKeyValue(ctx, name)
		}
	}
}

// TestNATSSubscribeThenPublish is TestSubscribeThenPublish over NATS: an
// event published on A right after subscription_succeeded on B reaches B,
// and only once.
func TestNATSSubscribeThenPublish(t *testing.T) {
	d := natsDuo(t, "roost-nats-subscribe")
	sub := dial(t, d.b, "subscriber")
	for i := range 100 {
		channel := "fresh." + strconv.Itoa(i)
		sub.Subscribe(channel)
		d.a.trigger(channel, "first", "right after subscription_succeeded on B")
		d.a.trigger(channel, "second", "after the first")
		if _, ok := sub.Await(testutil.ReadTimeout, inChannel(channel, "second")); !ok {
			t.Fatalf("round %d: events published on A never reached B; %s", i, sub.Describe())
		}
		if n := len(sub.Events(channel, "first")); n != 1 {
			t.Fatalf("round %d: the first event reached B %d times, want once; %s", i, n, sub.Describe())
		}
		sub.Send(`{"event":"pusher:unsubscribe","data":{"channel":%q}}`, channel)
	}
}

// TestNATSPresenceAcrossNodes: two tabs of one user on two nodes are one
// member; member_removed comes when the last tab closes; the HTTP API of
// either node lists the cluster's members and counts.
func TestNATSPresenceAcrossNodes(t *testing.T) {
	d := natsDuo(t, "roost-nats-presence")
	const channel = "presence-nats"
	watcher := dial(t, d.a, "watcher")
	subscribePresence(t, watcher, channel, "w")
	tabB := dial(t, d.b, "u tab 1")
	subscribePresence(t, tabB, channel, "u")
	added := func(f testutil.Frame) bool {
		return f.Channel == channel && f.Event == "pusher_internal:member_added"
	}
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
}

// TestNATSKilledNodeIsReaped: a node killed with SIGKILL says no goodbye;
// when its heartbeat lapses the survivor removes its member, announces it
// once, and its subscriptions leave the counts.
func TestNATSKilledNodeIsReaped(t *testing.T) {
	d := natsDuo(t, "roost-nats-kill")
	const channel = "presence-kill"
	watcher := dial(t, d.b, "watcher")
	subscribePresence(t, watcher, channel, "w")
	ghost := dial(t, d.a, "ghost")
	subscribePresence(t, ghost, channel, "ghost")
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
	if _, ok := watcher.Await(time.Second, removed); ok {
		t.Fatalf("member_removed announced twice; %s", watcher.Describe())
	}
}

package natsstore

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// faultTTL is the node TTL of the fault tests: short, so that an outage
// longer than it takes seconds, and a heartbeat period long enough for the
// race detector's pace.
const faultTTL = 3 * time.Second

// faultNodes starts n nodes on a private nats-server.
func faultNodes(t *testing.T, n int) (*testutil.NATS, []*node, []*inbox) {
	t.Helper()
	srv := testutil.StartNATS(t)
	ns, boxes := nodesAt(t, srv.URL(), n, func(_ int, c *cluster.Settings) {
		c.NodeTTL, c.SlowReply = faultTTL, time.Second
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- nats-server ---\n%s", srv.Output())
		}
	})
	return srv, ns, boxes
}

// subscribe subscribes node to channel and waits until NATS has it.
func subscribe(node *node, channel string) {
	ready := make(chan struct{})
	node.Subscribe("app", channel, func() { close(ready) })
	<-ready
}

// members returns the ids of a presence channel's members as node reads
// them, or the error.
func members(node *node, channel string) string {
	ms, err := node.Presence.Members(context.Background(), "app", channel)
	if err != nil {
		return err.Error()
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return fmt.Sprint(ids)
}

// crossing reports whether a message A publishes now reaches B.
func crossing(a *node, b *inbox, channel string) func() bool {
	i := 0
	return func() bool {
		i++
		data := fmt.Sprint("probe-", i)
		a.Publish(&hub.Message{App: "app", Channel: channel, Event: "probe", Data: data})
		return testutil.Poll(500*time.Millisecond, func() bool { return b.Has("probe", data) })
	}
}

// joinAndSignIn makes user a member of channel and signed in, on node.
func joinAndSignIn(t *testing.T, node *node, channel, user string) {
	t.Helper()
	ctx := context.Background()
	if first, err := node.Presence.Join(ctx, "app", channel, hub.Member{ID: user}, 0); err != nil || !first {
		t.Fatalf("join %s: first %v, err %v", user, first, err)
	}
	if first, err := node.Users.SignIn(ctx, "app", user); err != nil || !first {
		t.Fatalf("sign-in %s: first %v, err %v", user, first, err)
	}
}

// TestNATSRestartEmpty: NATS killed and started again with an empty store
// (its buckets gone). Both nodes come back by themselves: they create the
// buckets again, write their members, users and counts again, subscribe
// again, and announce nobody as gone.
func TestNATSRestartEmpty(t *testing.T) {
	srv, ns, boxes := faultNodes(t, 2)
	a, b := ns[0], ns[1]
	subscribe(b, "presence-r")
	subscribe(b, "news")
	joinAndSignIn(t, a, "presence-r", "ua")
	joinAndSignIn(t, b, "presence-r", "ub")
	a.Counts.Subscribed("app", "news", 2)
	srv.Kill()
	srv.Wipe()
	testutil.Eventually(t, natsWait, "both nodes degraded", func() bool { return allReady(ns) == 0 })
	srv.Start()
	testutil.Eventually(t, natsWait, "both nodes ready again", func() bool { return allReady(ns) == 2 })
	testutil.Eventually(t, natsWait, "messages crossing again", crossing(a, boxes[1], "news"))
	ctx := context.Background()
	testutil.Eventually(t, natsWait, "members, users and counts written again", func() bool {
		on, _ := b.Users.Online(ctx, "app", []string{"ua", "ub"})
		n, _ := b.Counts.Count(ctx, "app", "news")
		return members(b, "presence-r") == "[ua ub]" && len(on) == 2 && n == 2
	})
	for _, box := range boxes {
		for _, u := range []string{"ua", "ub"} {
			if box.Has("pusher_internal:member_removed", fmt.Sprintf(`{"user_id":%q}`, u)) {
				t.Fatalf("member_removed for %s, who never left", u)
			}
		}
	}
}

// TestNATSRestartWithDataPastTTL: NATS killed and started again with its
// store, after longer than the node TTL, so every heartbeat has lapsed.
// No node takes another for dead: each saw the outage and waits a whole
// TTL before it reaps, by which time the others beat again.
func TestNATSRestartWithDataPastTTL(t *testing.T) {
	noReapPastTTL(t, "presence-d", (*testutil.NATS).Kill, (*testutil.NATS).Start)
}

// noReapPastTTL has NATS stopped by stop, with members on both nodes, for
// longer than the node TTL, and then started by start: no node takes the
// other for dead, though every heartbeat may lapse before any node beats.
func noReapPastTTL(t *testing.T, channel string, stop, start func(*testutil.NATS)) {
	srv, ns, boxes := faultNodes(t, 2)
	a, b := ns[0], ns[1]
	subscribe(a, channel)
	subscribe(b, channel)
	joinAndSignIn(t, a, channel, "ua")
	joinAndSignIn(t, b, channel, "ub")
	stop(srv)
	testutil.Eventually(t, natsWait, "both nodes degraded", func() bool { return allReady(ns) == 0 })
	time.Sleep(faultTTL + time.Second) // the outage outlasts every heartbeat
	start(srv)
	testutil.Eventually(t, natsWait, "both nodes ready again", func() bool { return allReady(ns) == 2 })
	// Two TTLs: long past the moment a node may reap.
	if testutil.Poll(2*faultTTL, func() bool {
		return boxes[0].Has("pusher_internal:member_removed", `{"user_id":"ub"}`) ||
			boxes[1].Has("pusher_internal:member_removed", `{"user_id":"ua"}`)
	}) {
		t.Fatal("a node took the other for dead after NATS came back")
	}
	if got := members(a, channel); got != "[ua ub]" {
		t.Fatalf("members %s, want [ua ub]", got)
	}
}

// TestNATSPauseDeliversAtMostOnce: NATS paused (SIGSTOP) past the nodes'
// patience while one node publishes. The nodes notice, reconnect when it
// runs again, and no event is delivered twice; the count of those that
// crossed is logged (core NATS keeps no history: see docs/cluster.md).
func TestNATSPauseDeliversAtMostOnce(t *testing.T) {
	const events = 20
	srv, ns, boxes := faultNodes(t, 2)
	a, b := ns[0], ns[1]
	subscribe(b, "news")
	srv.Pause()
	for i := range events {
		a.Publish(&hub.Message{App: "app", Channel: "news", Event: "e", Data: fmt.Sprint(i)})
	}
	testutil.Eventually(t, natsWait, "a node degraded by the pause", func() bool { return allReady(ns) < 2 })
	srv.Resume()
	testutil.Eventually(t, natsWait, "both nodes ready again", func() bool { return allReady(ns) == 2 })
	testutil.Eventually(t, natsWait, "messages crossing again", crossing(a, boxes[1], "news"))
	crossed := 0
	for i := range events {
		switch n := boxes[1].Count("e", fmt.Sprint(i)); {
		case n > 1:
			t.Fatalf("event %d delivered %d times", i, n)
		case n == 1:
			crossed++
		}
		if boxes[0].Count("e", fmt.Sprint(i)) != 1 {
			t.Fatalf("event %d not delivered once on its own node", i)
		}
	}
	t.Logf("%d of %d events published during the pause reached the other node", crossed, events)
}

// TestStartsWithoutNATS: a node whose NATS is down starts degraded,
// delivers locally, and joins the cluster by itself once NATS is up.
func TestStartsWithoutNATS(t *testing.T) {
	srv := testutil.StartNATS(t)
	srv.Kill()
	box := &inbox{}
	n := start(t, srv.URL(), cluster.Settings{Prefix: "late", Node: 1, Apps: []string{"app"}, Deliver: box.Deliver, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { n.Close() })
	if n.Ready() == nil {
		t.Fatal("ready without NATS")
	}
	n.Publish(&hub.Message{App: "app", Channel: "c", Event: "e", Data: "local"})
	if !box.Has("e", "local") {
		t.Fatal("a publish was not delivered locally while NATS is down")
	}
	srv.Start()
	testutil.Eventually(t, natsWait, "ready once NATS is up", func() bool { return n.Ready() == nil })
	if first, err := n.Presence.Join(context.Background(), "app", "presence-l", hub.Member{ID: "u"}, 0); err != nil || !first {
		t.Fatalf("join after NATS came: first %v, err %v", first, err)
	}
}

// TestDepartureDuringOutageAnnounced: a member that leaves while NATS is
// away is not announced then (the node cannot tell whether the user has a
// connection elsewhere), and is announced once, to every node, after NATS
// comes back with its old data and the node has written its shares again.
func TestDepartureDuringOutageAnnounced(t *testing.T) {
	srv, ns, boxes := faultNodes(t, 2)
	a, b := ns[0], ns[1]
	subscribe(b, "presence-o")
	joinAndSignIn(t, a, "presence-o", "ua")
	joinAndSignIn(t, b, "presence-o", "ub")
	srv.Kill()
	testutil.Eventually(t, natsWait, "both nodes degraded", func() bool { return allReady(ns) == 0 })
	if last, err := a.Presence.Leave(context.Background(), "app", "presence-o", "ua"); err != nil || last {
		t.Fatalf("a leave while NATS is away: last %v, err %v; want it deferred", last, err)
	}
	srv.Start()
	removed := `{"user_id":"ua"}`
	testutil.Eventually(t, natsWait, "member_removed for ua on the other node", func() bool {
		return boxes[1].Has("pusher_internal:member_removed", removed)
	})
	if got := members(b, "presence-o"); got != "[ub]" {
		t.Fatalf("members %s, want [ub]", got)
	}
	if n := boxes[1].Count("pusher_internal:member_removed", removed); n != 1 {
		t.Fatalf("member_removed for ua delivered %d times, want once", n)
	}
}

// TestNATSPausePastTTL: NATS paused (SIGSTOP) for longer than the node
// TTL, with members on both nodes. When it runs again its heartbeats may
// expire before any node beats; no node takes the other for dead.
func TestNATSPausePastTTL(t *testing.T) {
	noReapPastTTL(t, "presence-p", (*testutil.NATS).Pause, (*testutil.NATS).Resume)
}

// TestReadsWhileDisconnectedAreUnreachable: a store call that fails while
// the connection is down says the store is unreachable, so that the node
// answers from its own share, not with an error.
func TestReadsWhileDisconnectedAreUnreachable(t *testing.T) {
	srv, ns, _ := faultNodes(t, 1)
	s := ns[0].Store
	srv.Kill()
	testutil.Eventually(t, natsWait, "connection down", func() bool { return !s.nc.IsConnected() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for name, err := range map[string]error{
		"Count":   second(s.Count(ctx, "app", "c")),
		"Members": second(s.Members(ctx, "app", "presence-c")),
		"Online":  second(s.Online(ctx, "app", []string{"u"})),
		"Owner":   second(s.Owner(ctx, "session")),
		"Tallies": second(s.Tallies(ctx, []string{"other"})),
		"Post":    s.Post(ctx, "1", []byte("{}")),
	} {
		if !cluster.Unreachable(err) {
			t.Errorf("%s while disconnected: %v, want the store unreachable", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

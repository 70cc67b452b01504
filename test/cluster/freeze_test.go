package cluster

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// freezeFor is how long TestBackendFreeze keeps the backend stopped: well
// past the 6 s a node takes to declare it unreachable, so every node goes
// degraded and comes back.
const freezeFor = 20 * time.Second

// pausable is a private backend server that a test stops with SIGSTOP.
type pausable interface {
	Reach() testutil.Reach
	Pause()
	Resume()
	Output() string
}

// onPausables runs f as a subtest on a private redis-server and on a
// private nats-server.
func onPausables(t *testing.T, f func(t *testing.T, srv pausable)) {
	rows := []struct {
		name  string
		start func(testing.TB) pausable
	}{
		{"redis", func(t testing.TB) pausable { return testutil.StartRedis(t) }},
		{"nats", func(t testing.TB) pausable { return testutil.StartNATS(t) }},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) { f(t, row.start(t)) })
	}
}

// TestBackendFreeze stops a private redis-server, then a private
// nats-server, with SIGSTOP for freezeFor under three roost nodes, while a
// canary on every ordered pair of nodes publishes through one node's HTTP
// API every 100 ms and reads on the other. A user joins presence-room on
// node A while the backend is stopped. Every publish answered 200 must
// reach its subscriber exactly once, and each node's member of
// presence-room must be told of the new user exactly once (docs/cluster.md,
// "When Redis goes away").
func TestBackendFreeze(t *testing.T) { onPausables(t, freeze) }

// frozen is three nodes over a backend the test pauses.
type frozen struct {
	t         *testing.T
	nodes     []*node
	observers []*testutil.Client // a member of room on each node
	canaries  []*testutil.Canary
	names     []string // "A to B" for each canary
}

func freeze(t *testing.T, s pausable) {
	f := startFrozen(t, s)
	s.Pause()
	paused := time.Now()
	t.Logf("backend paused at canary event %d", f.canaries[0].Sent())
	waitNodes(t, f.nodes, http.StatusServiceUnavailable, "degraded:")
	subscribePresence(t, dial(t, f.nodes[0], "member late"), room, "late")
	outlast(freezeFor - time.Since(paused))
	s.Resume()
	t.Logf("backend resumed at canary event %d", f.canaries[0].Sent())
	waitNodes(t, f.nodes, http.StatusOK, "ready")
	t.Logf("every node ready at canary event %d", f.canaries[0].Sent())
	f.checkCanaries()
	f.checkAnnouncedOnce("late")
}

// startFrozen starts the nodes, their members of room and the canaries,
// and waits for the canaries' baseline.
func startFrozen(t *testing.T, s pausable) *frozen {
	bin := buildRoost(t)
	prefix := prefixFor("roost-freeze")
	f := &frozen{t: t}
	for _, name := range []string{"A", "B", "C"} {
		f.nodes = append(f.nodes, startNode(t, bin, "node "+name, s.Reach(), prefix))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range f.nodes {
				t.Log(n.logs())
			}
			t.Logf("--- backend ---\n%s", s.Output())
		}
	})
	waitNodes(t, f.nodes, http.StatusOK, "ready")
	for i, n := range f.nodes {
		o := dial(t, n, fmt.Sprintf("observer o%d", i))
		o.Timeout = stateChange
		subscribePresence(t, o, room, fmt.Sprintf("o%d", i))
		f.observers = append(f.observers, o)
	}
	f.startCanaries()
	return f
}

// startCanaries starts a canary on every ordered pair of nodes, each on a
// channel of its own.
func (f *frozen) startCanaries() {
	for i, pub := range f.nodes {
		for j, sub := range f.nodes {
			if i != j {
				name := pub.name + " to " + sub.name
				f.canaries = append(f.canaries, startCanary(f.t, sub, pub, fmt.Sprintf("news-%d-%d", i, j)))
				f.names = append(f.names, name)
			}
		}
	}
	for _, c := range f.canaries {
		testutil.Eventually(f.t, testutil.ReadTimeout, "the canary's baseline", func() bool { return c.Sent() >= canaryBaseline })
	}
}

// checkCanaries stops the canaries and fails for every event answered 200
// that did not arrive exactly once.
func (f *frozen) checkCanaries() {
	for i, c := range f.canaries {
		c.Stop(stateChange)
		r := c.Report(time.Time{}, time.Time{})
		f.t.Logf("canary %s: %v", f.names[i], r)
		if r.Missed > 0 || r.Duplicates > 0 {
			f.t.Errorf("canary %s: of %d events answered 200, %d never arrived and %d arrived twice",
				f.names[i], r.Sent-r.Refused, r.Missed, r.Duplicates)
		}
	}
}

// checkAnnouncedOnce waits until every observer has been told that user
// joined and then, after a last event published through every node (which
// follows whatever that node had queued), that it was told so once, and
// that nobody left.
func (f *frozen) checkAnnouncedOnce(user string) {
	for _, o := range f.observers {
		o.Next(memberEvent("pusher_internal:member_added", user))
	}
	for i, n := range f.nodes {
		n.trigger(room, "last", n.name)
		for _, o := range f.observers {
			o.Next(func(fr testutil.Frame) bool { return fr.Event == "last" && fr.Text() == f.nodes[i].name })
		}
	}
	for _, o := range f.observers {
		added := o.Events(room, "pusher_internal:member_added")
		if got := countUser(added, user); got != 1 {
			f.t.Errorf("%s was told %d times that %s joined: %v", o.Name, got, user, added)
		}
		if removed := o.Events(room, "pusher_internal:member_removed"); len(removed) > 0 {
			f.t.Errorf("%s was told of departures though nobody left: %v", o.Name, removed)
		}
	}
}

// memberEvent matches a member event of user on room.
func memberEvent(event, user string) func(testutil.Frame) bool {
	return func(fr testutil.Frame) bool {
		return fr.Channel == room && fr.Event == event && strings.Contains(fr.Text(), fmt.Sprintf("%q", user))
	}
}

// countUser counts the member event data that name user.
func countUser(data []string, user string) int {
	n := 0
	for _, d := range data {
		if strings.Contains(d, fmt.Sprintf(`"user_id":%q`, user)) {
			n++
		}
	}
	return n
}

// waitNodes polls GET /ready on every node until it answers status with a
// body starting with prefix.
func waitNodes(t *testing.T, nodes []*node, status int, prefix string) {
	t.Helper()
	for _, n := range nodes {
		var got int
		var body string
		if !testutil.Poll(stateChange, func() bool {
			got, body = n.ready()
			return got == status && strings.HasPrefix(body, prefix)
		}) {
			t.Fatalf("GET /ready on %s = %d %q, want %d %q...", n.name, got, body, status, prefix)
		}
	}
}

package cluster

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// deferredNodeTTL is the node_ttl of TestKilledNodesDeferredDepartureIsAnnounced:
// long enough that a node finds the paused backend unreachable before its
// heartbeat lapses there (the other node would reap it, alive), and that
// the heartbeat period after the resume leaves time for the departure.
const deferredNodeTTL = 6 * time.Second

// TestKilledNodesDeferredDepartureIsAnnounced: a member leaves node A
// while the backend is paused (SIGSTOP), or within a heartbeat period
// after it resumed, so that A defers the departure, which the store has
// made once A has written its shares again, and A is killed (SIGKILL)
// before it announces it. Node B, which reaps A and finds nothing of the
// member left to remove, announces the departure from A's record of it:
// the watcher on B gets member_removed (which B's check of its clients
// after a reaping would also send), and the receiver the member_removed
// webhook, once, after the delay (which nothing else sends).
func TestKilledNodesDeferredDepartureIsAnnounced(t *testing.T) {
	onPausables(t, func(t *testing.T, srv pausable) {
		for _, paused := range []bool{true, false} {
			name := map[bool]string{true: "left during the pause", false: "left after it"}[paused]
			t.Run(name, func(t *testing.T) { killedDeferredDeparture(t, srv, paused) })
		}
	})
}

// killedDeferredDeparture is TestKilledNodesDeferredDepartureIsAnnounced
// with the member leaving while the backend is paused, or after.
func killedDeferredDeparture(t *testing.T, srv pausable, paused bool) {
	d := newHookDuoTTL(t, "roost-deferred", srv.Reach(), srv.Output, deferredNodeTTL)
	leaver, watcher := dial(t, d.a, "leaver"), dial(t, d.b, "watcher")
	subscribePresence(t, leaver, "presence-d", "gone")
	subscribePresence(t, watcher, "presence-d", "watcher")
	if !testutil.Poll(hookWait, func() bool { return hooks(d.recv, "member_added", "presence-d") == 2 }) {
		t.Fatal("the members' member_added webhooks never came")
	}
	leave := func() { leaver.Send(`{"event":"pusher:unsubscribe","data":{"channel":"presence-d"}}`) }
	srv.Pause()
	waitNodes(t, []*node{d.a}, http.StatusServiceUnavailable, "degraded:")
	if paused {
		leave()
	}
	srv.Resume()
	waitNodes(t, []*node{d.a}, http.StatusOK, "ready") // not settled for a heartbeat period
	if !paused {
		leave()
	}
	if !testutil.Poll(hookWait, func() bool { return departureRecorded(d.reach, d.prefix) }) {
		t.Fatal("node A never recorded the departure in its outbox: it did not defer it")
	}
	if slices.Contains((&duo{t: t}).users(d.b, "presence-d"), "gone") {
		t.Fatal("the store still has the member who left")
	}
	d.a.stop() // before it announces the departure it deferred
	killed := time.Now()
	if _, ok := watcher.Await(hookWait, isRemoved("presence-d", "gone")); !ok {
		t.Fatalf("the watcher on B never got member_removed of the member who left A: %s", watcher.Describe())
	}
	if !testutil.Poll(hookWait, func() bool { return hooks(d.recv, "member_removed", "presence-d") > 0 && d.b.Metric(outboxSeries) == 0 }) {
		t.Fatal("no member_removed webhook for the member who left A")
	}
	if n := hooks(d.recv, "member_removed", "presence-d"); n != 1 {
		t.Fatalf("%d member_removed webhooks, want 1", n)
	}
	t.Logf("member_removed webhook delivered %v after A was killed", time.Since(killed).Round(time.Millisecond))
}

// isRemoved matches member_removed of user on channel.
func isRemoved(channel, user string) func(testutil.Frame) bool {
	return func(f testutil.Frame) bool {
		return inChannel(channel, "pusher_internal:member_removed")(f) && f.Text() == `{"user_id":"`+user+`"}`
	}
}

// hooks counts the webhooks of event on channel that r received,
// duplicates included.
func hooks(r *receiver, event, channel string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.got {
		if e.Name == event && e.Channel == channel {
			n++
		}
	}
	return n
}

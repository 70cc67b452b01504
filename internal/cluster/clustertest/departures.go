package clustertest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/webhook"
)

// DeadNodesDeferredDepartureAnnounced checks that a departure a node
// deferred (it left just after an outage, the store made it already) and
// did not announce before it was killed is announced by the node that
// reaps it, to subscribers and the observer, once; unless its member came
// back: one member is back on alive, another came back and left again
// there (alive's answer announces that departure; the reaper does not
// again). alive and dead observe into removals; box is alive's inbox.
func DeadNodesDeferredDepartureAnnounced[S cluster.Store](t *testing.T, alive, dead *Node[S], removals *Removals, box *Inbox, wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	ready := make(chan struct{})
	alive.Subscribe("app", "presence-d", func() { close(ready) })
	<-ready
	testutil.Eventually(t, wait, "the survivor settled", func() bool { return alive.Link().Settled(alive.Period()) })
	users := []string{"gone", "back", "again"}
	for _, u := range users {
		mustChange(t, "join "+u+" on the node to die", true)(dead.Presence.Join(ctx, "app", "presence-d", hub.Member{ID: u}, 0))
	}
	dead.Down(errors.New("an outage, for the test"))
	dead.Link().Up() // back, and not settled for a heartbeat period
	for _, u := range users {
		mustChange(t, "leave "+u+" (deferred)", false)(dead.Presence.Leave(ctx, "app", "presence-d", u))
	}
	for _, u := range []string{"back", "again"} {
		mustChange(t, "comeback of "+u, true)(alive.Presence.Join(ctx, "app", "presence-d", hub.Member{ID: u}, 0))
		cancelRemoved(t, alive, u)
	}
	mustChange(t, "leave again", true)(alive.Presence.Leave(ctx, "app", "presence-d", "again"))
	dead.Down(errors.New("an outage, so that it stays unsettled")) // announces nothing before it dies
	dead.Halt()
	want := []string{alive.ID() + " gone"}
	testutil.Eventually(t, wait, "the dead node reaped, its deferred departure announced", func() bool {
		_, listed, err := alive.Store.Nodes(ctx)
		return err == nil && !slices.Contains(listed, dead.ID()) && len(removals.Got()) >= len(want)
	})
	if got := removals.Got(); !slices.Equal(got, want) {
		t.Fatalf("member_removed reported %q, want %q", got, want)
	}
	for u, n := range map[string]int{"gone": 1, "back": 0, "again": 0} {
		if got := box.Count("pusher_internal:member_removed", `{"user_id":"`+u+`"}`); got != n {
			t.Errorf("%s's member_removed delivered %d times, want %d", u, got, n)
		}
	}
}

// mustChange checks a presence change's answer.
func mustChange(t *testing.T, what string, want bool) func(bool, error) {
	return func(got bool, err error) {
		t.Helper()
		if err != nil || got != want {
			t.Fatalf("%s: answered %v (err %v), want %v", what, got, err, want)
		}
	}
}

// cancelRemoved does what the comeback's member_added does on a node with
// member webhooks: it cancels the member_removed held back, which the
// deferred departure's hold is.
func cancelRemoved[S cluster.Store](t *testing.T, n *Node[S], user string) {
	t.Helper()
	op := []webhook.Op{{Kind: webhook.OpCancel, Key: webhook.RemovedKey("app", "presence-d", user), Token: "comeback:" + user}}
	n.WebhookPending().Apply(op)
	if !op[0].Found {
		t.Fatalf("%s's comeback found no departure held", user)
	}
}

// SignOutDeferredUntilConfirmed checks that a user's last sign-out on a
// node during an outage goes offline for its watchers only once the store
// confirms it, after the node has settled: "still", signed in on other
// too, never goes offline; "gone", signed in on n alone, goes offline
// once. box is n's inbox.
func SignOutDeferredUntilConfirmed[S cluster.Store](t *testing.T, n, other *Node[S], box *Inbox, wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	testutil.Eventually(t, wait, "both nodes ready", func() bool { return AllReady([]*Node[S]{n, other}) == 2 })
	for _, u := range []string{"still", "gone"} {
		mustChange(t, "sign in "+u, true)(n.Users.SignIn(ctx, "app", u))
	}
	mustChange(t, "still's sign-in on the other node", false)(other.Users.SignIn(ctx, "app", "still"))
	n.Down(errors.New("an outage, for the test"))
	for _, u := range []string{"still", "gone"} {
		mustChange(t, "sign out "+u+" (deferred)", false)(n.Users.SignOut(ctx, "app", u))
	}
	offline := func(u string) int {
		m := hub.Watchlist("app", u, false)
		return box.Count(m.Event, m.Data)
	}
	testutil.Eventually(t, wait, "gone offline once the node settled", func() bool { return offline("gone") > 0 })
	if got := offline("gone") + offline("still"); got != 1 {
		t.Fatalf("%d offline events (still %d), want gone's alone, once", got, offline("still"))
	}
}

// OutageDepartureHeldForComeback checks that a member who leaves n while
// the store is away, its departure deferred, is held in the store once n
// has written its shares again: a comeback on other, which the store
// answers as a first join, finds the member_removed held back, against
// which its member_added webhook is cancelled instead of sent a second
// time, and n announces nothing once settled. "gone", who does not come
// back, is announced once; "elsewhere", a member on other too, is never.
// box is n's inbox.
func OutageDepartureHeldForComeback[S cluster.Store](t *testing.T, n, other *Node[S], box *Inbox, wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	testutil.Eventually(t, wait, "both nodes ready", func() bool { return AllReady([]*Node[S]{n, other}) == 2 })
	for _, u := range []string{"back", "gone", "elsewhere"} {
		mustChange(t, "join "+u, true)(n.Presence.Join(ctx, "app", "presence-o", hub.Member{ID: u}, 0))
	}
	mustChange(t, "elsewhere's join on the other node", false)(other.Presence.Join(ctx, "app", "presence-o", hub.Member{ID: "elsewhere"}, 0))
	n.Down(errors.New("an outage, for the test"))
	for _, u := range []string{"back", "gone", "elsewhere"} {
		mustChange(t, "leave "+u+" (deferred)", false)(n.Presence.Leave(ctx, "app", "presence-o", u))
	}
	testutil.Eventually(t, wait, "the departures of back and gone held and recorded", func() bool {
		recs, err := n.Store.OutboxRead(ctx, n.ID()) // each written after its hold
		return err == nil && len(recs) == 2
	})
	mustChange(t, "comeback on the other node", true)(other.Presence.Join(ctx, "app", "presence-o", hub.Member{ID: "back"}, 0))
	op := []webhook.Op{{Kind: webhook.OpCancel, Key: webhook.RemovedKey("app", "presence-o", "back"), Token: "comeback:back"}}
	other.WebhookPending().Apply(op)
	if !op[0].Found {
		t.Fatal("the comeback found no departure held: its member_added would be sent a second time")
	}
	removed := func(u string) int { return box.Count("pusher_internal:member_removed", `{"user_id":"`+u+`"}`) }
	testutil.Eventually(t, wait, "gone announced once settled", func() bool { return removed("gone") > 0 })
	if got := [3]int{removed("back"), removed("gone"), removed("elsewhere")}; got != [3]int{0, 1, 0} {
		t.Fatalf("member_removed of back, gone, elsewhere delivered %v times, want 0, 1, 0", got)
	}
}

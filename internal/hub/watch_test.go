package hub

import (
	"context"
	"slices"
	"testing"
)

// watching returns what Watching answers for chans on h (inline: at once).
func watching(t *testing.T, h *Hub, chans ...*Channel) []string {
	t.Helper()
	var got []string
	var err error
	h.Watching("app", chans, 0, func(online []string, e error) { got, err = online, e })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWatchStateFollowsEvents: a new watcher of a user is told what the
// node's other watchers were: the store's answer when the channel came
// here, then every watchlist event delivered on it; an event that tells
// them nothing new is not delivered.
func TestWatchStateFollowsEvents(t *testing.T) {
	h := newTestHub(1)
	h.users.SignIn(context.Background(), "app", "on")
	on, off := h.Acquire("app", WatchlistPrefix+"on"), h.Acquire("app", WatchlistPrefix+"off")
	s := newSub(1)
	s.join(h, on)
	s.join(h, off)
	if got := watching(t, h, on, off); !slices.Equal(got, []string{"on"}) {
		t.Fatalf("watching answered %v online, want on alone (the store's)", got)
	}
	h.Deliver(Watchlist("app", "on", true))
	h.Deliver(Watchlist("app", "off", true))
	h.Deliver(Watchlist("app", "off", true))
	if got := frames(s); len(got) != 1 || got[0] != "pusher_internal:watchlist_events:"+Watchlist("app", "off", true).Data {
		t.Fatalf("the watcher got %q, want off's online alone, once", got)
	}
	h.Deliver(Watchlist("app", "on", false))
	if got := watching(t, h, on, off); !slices.Equal(got, []string{"off"}) {
		t.Fatalf("watching answered %v online after the events, want off alone", got)
	}
}

// TestEventBeforeTheStoreAnswersWins: a watchlist event delivered on a
// channel before its state is read is newer than nothing; the store's
// answer does not replace it.
func TestEventBeforeTheStoreAnswersWins(t *testing.T) {
	h := newTestHub(1)
	ch := h.Acquire("app", WatchlistPrefix+"u")
	h.Deliver(Watchlist("app", "u", true))
	if got := watching(t, h, ch); !slices.Equal(got, []string{"u"}) {
		t.Fatalf("watching answered %v online, want u (its event came first)", got)
	}
}

// TestReconcileCorrectsWatchers: after the store's users changed behind
// this node's back (events lost in an outage), Reconcile tells the
// watchers who came online, and who went offline only when removals are
// allowed; a second round tells them nothing.
func TestReconcileCorrectsWatchers(t *testing.T) {
	h := newTestHub(1)
	ctx := context.Background()
	a, b := h.Acquire("app", WatchlistPrefix+"a"), h.Acquire("app", WatchlistPrefix+"b")
	h.users.SignIn(ctx, "app", "b")
	s := newSub(1)
	s.join(h, a)
	s.join(h, b)
	watching(t, h, a, b)
	h.users.SignIn(ctx, "app", "a")
	h.users.SignOut(ctx, "app", "b")
	h.Reconcile(ctx, false)
	if got := frames(s); !slices.Equal(got, []string{"pusher_internal:watchlist_events:" + Watchlist("app", "a", true).Data}) {
		t.Fatalf("without removals the watcher got %q, want a online", got)
	}
	h.Reconcile(ctx, true)
	if got := frames(s); !slices.Equal(got, []string{"pusher_internal:watchlist_events:" + Watchlist("app", "b", false).Data}) {
		t.Fatalf("with removals the watcher got %q, want b offline", got)
	}
	h.Reconcile(ctx, true)
	if got := frames(s); len(got) != 0 {
		t.Fatalf("a second round told the watcher %q", got)
	}
}

// TestWatchStateReadsTheEventsName: a user whose id is "online" goes
// offline all the same.
func TestWatchStateReadsTheEventsName(t *testing.T) {
	h := newTestHub(1)
	h.users.SignIn(context.Background(), "app", "online")
	ch := h.Acquire("app", WatchlistPrefix+"online")
	watching(t, h, ch)
	h.Deliver(Watchlist("app", "online", false))
	if got := watching(t, h, ch); len(got) != 0 {
		t.Fatalf("watching answered %v online after its offline event", got)
	}
}

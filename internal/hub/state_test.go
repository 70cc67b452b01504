package hub

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestCacheKeepsLastEventForTTL: a cache channel replays its last event, not
// excluding anyone, until CacheTTL has passed.
func TestCacheKeepsLastEventForTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHub(1)
		for _, d := range []string{"1", "2"} {
			h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "e", Data: d, SocketID: "7.1"})
		}
		h.Publish("app", Publication{Channels: []string{"cache-x"}, Event: "client-e", Data: "3"})
		h.Publish("app", Publication{Channels: []string{"news"}, Event: "e", Data: "4"})
		ctx := context.Background()
		m, ttl, ok, _ := h.cache.Get(ctx, "app", "cache-x")
		if !ok || m.Data != "2" || m.Except != "" || ttl != CacheTTL {
			t.Fatalf("cached %+v for %v (%v); want data 2, no exclusion, for %v", m, ttl, ok, CacheTTL)
		}
		if _, _, ok, _ := h.Cached(ctx, "app", "news"); ok {
			t.Fatal("a channel that is not a cache channel was cached")
		}
		time.Sleep(CacheTTL - time.Second)
		if _, ttl, ok, _ := h.Cached(ctx, "app", "cache-x"); !ok || ttl != time.Second {
			t.Fatalf("one second before expiry: ttl %v, ok %v", ttl, ok)
		}
		time.Sleep(time.Second)
		if _, _, ok, _ := h.Cached(ctx, "app", "cache-x"); ok {
			t.Fatal("the event is still cached after CacheTTL")
		}
	})
}

// TestSetStateReplacesOnlyTheGivenStores: the hub consults a store set by
// SetState and keeps its default for the others.
func TestSetStateReplacesOnlyTheGivenStores(t *testing.T) {
	h := newTestHub(1)
	users := NewMemoryUsers()
	h.SetState(State{Users: users})
	h.SignIn("app", "u", 0, func(error) {})
	if on, _ := users.Online(context.Background(), "app", []string{"u"}); len(on) != 1 {
		t.Fatal("the hub did not sign in through the store it was given")
	}
	if err := join(h, h.Acquire("app", "presence-x"), "u", 0); err != nil {
		t.Fatalf("the default presence store was lost: %v", err)
	}
	if st, _ := h.Channel(context.Background(), "app", "presence-x"); st.UserCount != 1 {
		t.Fatalf("user count %d, want 1", st.UserCount)
	}
}

// TestMemoryEachListsEveryShare: Each reports every member and user with its
// connections, as a cluster node writes them again.
func TestMemoryEachListsEveryShare(t *testing.T) {
	p, u := NewMemoryPresence(), NewMemoryUsers()
	ctx := context.Background()
	for _, id := range []string{"a", "a", "b"} {
		p.Join(ctx, "app", "presence-x", Member{ID: id, Info: "i" + id}, 0)
		u.SignIn(ctx, "app", id)
	}
	p.Join(ctx, "other", "presence-y", Member{ID: "c"}, 0)
	var got []string
	p.Each(func(app, channel string, m Member, conns int) {
		got = append(got, fmt.Sprint(app, "/", channel, "/", m.ID, "/", m.Info, "/", conns))
	})
	u.Each(func(app, user string, conns int) { got = append(got, fmt.Sprint(app, "/", user, "/", conns)) })
	slices.Sort(got)
	want := []string{"app/a/2", "app/b/1", "app/presence-x/a/ia/2", "app/presence-x/b/ib/1", "other/presence-y/c//1"}
	if !slices.Equal(got, want) {
		t.Fatalf("Each listed %q, want %q", got, want)
	}
}

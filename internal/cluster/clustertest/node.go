package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// Node is a cluster node on a store of type S, with the parts the stores'
// tests look at.
type Node[S cluster.Store] struct {
	*cluster.Node
	Store    S
	Presence hub.Presence
	Users    hub.Users
	Counts   Counts
}

// Counts is a node's hub.Counts, with its writes at hand.
type Counts struct {
	hub.Counts
	n *cluster.Node
}

// Flush writes the node's pending count changes now.
func (c Counts) Flush() { c.n.FlushCounts() }

// Resync writes every count of the node outright now.
func (c Counts) Resync() { c.n.SyncCounts() }

// Start opens a node on the store that open makes at url.
func Start[S cluster.Store](t testing.TB, url string, s cluster.Settings, open func(string, cluster.Settings) (S, error)) *Node[S] {
	t.Helper()
	var store S
	n, err := cluster.Open(s, cluster.StoreBackend(url, func(url string, s cluster.Settings) (S, error) {
		var err error
		store, err = open(url, s)
		return store, err
	}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	st := n.State()
	return &Node[S]{Node: n, Store: store, Presence: st.Presence, Users: st.Users, Counts: Counts{st.Counts, n}}
}

// AllReady returns how many of ns are ready.
func AllReady[S cluster.Store](ns []*Node[S]) int {
	ready := 0
	for _, n := range ns {
		if n.Ready() == nil {
			ready++
		}
	}
	return ready
}

// DeadNodeIsReaped checks that a node stopped without its goodbye (its
// heartbeat lapses) is reaped by alive: its member is removed, once, and
// its user goes offline. box is alive's inbox.
func DeadNodeIsReaped[S cluster.Store](t *testing.T, alive, dead *Node[S], box *Inbox, wait time.Duration) {
	t.Helper()
	ready := make(chan struct{})
	alive.Subscribe("app", "presence-z", func() { close(ready) })
	<-ready
	ctx := context.Background()
	dead.Presence.Join(ctx, "app", "presence-z", hub.Member{ID: "ghost"}, 100)
	dead.Users.SignIn(ctx, "app", "ghost")
	dead.Halt()
	testutil.Eventually(t, wait, "member_removed for the dead node's member", func() bool {
		return box.Has("pusher_internal:member_removed", `{"user_id":"ghost"}`)
	})
	if m, _ := alive.Presence.Members(ctx, "app", "presence-z"); len(m) != 0 {
		t.Fatalf("ghost members left: %+v", m)
	}
	testutil.Eventually(t, wait, "the dead node's user offline", func() bool {
		on, err := alive.Users.Online(ctx, "app", []string{"ghost"})
		return err == nil && len(on) == 0
	})
	if n := box.Count("pusher_internal:member_removed", `{"user_id":"ghost"}`); n != 1 {
		t.Fatalf("member_removed delivered %d times, want once", n)
	}
}

// CountsAndCacheAcrossNodes checks that two nodes' subscription counts add
// up on either node, and that a cache entry put on one is read on the
// other with its time to live.
func CountsAndCacheAcrossNodes[S cluster.Store](t *testing.T, a, b *Node[S], wait time.Duration) {
	t.Helper()
	a.Counts.Subscribed("app", "c", 2)
	b.Counts.Subscribed("app", "c", 1)
	b.Counts.Subscribed("app", "d.e", 1)
	ctx := context.Background()
	testutil.Eventually(t, wait, "counts", func() bool {
		n, _ := a.Counts.Count(ctx, "app", "c")
		all, _ := b.Counts.Channels(ctx, "app", "")
		return n == 3 && all["c"] == 3 && all["d.e"] == 1 && len(all) == 2
	})
	a.State().Cache.Put(&hub.Message{App: "app", Channel: "cache-c", Event: "e", Data: "v"})
	testutil.Eventually(t, wait, "cache", func() bool {
		m, ttl, ok, _ := b.State().Cache.Get(ctx, "app", "cache-c")
		return ok && m.Data == "v" && ttl > time.Minute && ttl <= hub.CacheTTL
	})
}

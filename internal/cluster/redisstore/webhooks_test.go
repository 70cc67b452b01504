package redisstore

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/webhook"
)

// journal is what the observers of every node were told, naming the node.
type journal struct {
	mu  sync.Mutex
	log []string
}

func (j *journal) add(node int, s string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.log = append(j.log, fmt.Sprint(node, " ", s))
}

func (j *journal) read() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.log)
}

// facts is one node's observer.
type facts struct {
	hub.NopObserver
	node int
	j    *journal
}

func (f *facts) ChannelOccupied(app, channel string) { f.j.add(f.node, "occupied "+channel) }
func (f *facts) ChannelVacated(app, channel string)  { f.j.add(f.node, "vacated "+channel) }
func (f *facts) MemberRemoved(app, channel, user string) {
	f.j.add(f.node, "removed "+channel+" "+user)
}

// observed starts n nodes whose observers write to one journal.
func observed(t *testing.T, url string, n int, ttl time.Duration) ([]*node, func() []string) {
	j := &journal{}
	rs, _ := nodesWith(t, url, n, ttl, func(i int, c *cluster.Settings) { c.Observer = &facts{node: i, j: j} })
	return rs, j.read
}

// TestChannelTransitionsOncePerCluster: a channel occupied on one node and
// vacated on another is reported once each, by the node whose change took
// the cluster-wide count from or to zero.
func TestChannelTransitionsOncePerCluster(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, log := observed(t, url, 2, 0)
		step := func(node, delta int, want []string) {
			t.Helper()
			rs[node].Counts.Subscribed("app", "c", delta)
			rs[node].Counts.Flush()
			if got := log(); !slices.Equal(got, want) {
				t.Fatalf("after node %d %+d: %q, want %q", node, delta, got, want)
			}
		}
		step(0, 1, []string{"0 occupied c"})
		step(1, 1, []string{"0 occupied c"})
		step(0, -1, []string{"0 occupied c"})
		step(1, -1, []string{"0 occupied c", "1 vacated c"})
	})
}

// TestResyncReportsChannelTransitions: a counts resync (a node's first
// heartbeat, or after an outage) writes the node's shares outright, taking
// the pending changes with it; the channels it occupies or vacates are
// reported, once.
func TestResyncReportsChannelTransitions(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, log := observed(t, url, 1, 0)
		rs[0].Counts.Subscribed("app", "c", 1)
		rs[0].Counts.Resync()
		if got, want := log(), []string{"0 occupied c"}; !slices.Equal(got, want) {
			t.Fatalf("after a resync with a subscriber: %q, want %q", got, want)
		}
		rs[0].Counts.Subscribed("app", "c", -1)
		rs[0].Counts.Resync()
		if got, want := log(), []string{"0 occupied c", "0 vacated c"}; !slices.Equal(got, want) {
			t.Fatalf("after a resync without: %q, want %q", got, want)
		}
	})
}

// TestDeadNodeTransitionsReportedOnce: the channels and members that vanish
// with a killed node are reported once, by the survivor that reaps it.
func TestDeadNodeTransitionsReportedOnce(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, log := observed(t, url, 3, 900*time.Millisecond)
		dead := rs[2]
		rs[0].Counts.Subscribed("app", "shared", 1)
		dead.Counts.Subscribed("app", "shared", 1)
		dead.Counts.Subscribed("app", "solo", 1)
		rs[0].Counts.Flush()
		dead.Counts.Flush()
		dead.Presence.Join(t.Context(), "app", "presence-z", hub.Member{ID: "ghost"}, 100)
		dead.Halt() // no goodbye: the heartbeat just expires
		testutil.Eventually(t, redisWait, "the dead node reaped", func() bool {
			gone, _ := rs[0].Store.rdb.SIsMember(t.Context(), rs[0].Store.nodeKey("nodes"), dead.Store.node).Result()
			return !gone && len(log()) >= 4
		})
		got := log()
		reaper := got[len(got)-1][:1]
		want := []string{"0 occupied shared", "2 occupied solo", reaper + " removed presence-z ghost", reaper + " vacated solo"}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || reaper == "2" {
			t.Fatalf("reported %q, want %q: each once, the dead node's by one survivor", got, want)
		}
	})
}

// TestPendingIsSharedAndTokened: see clustertest.PendingIsSharedAndTokened.
func TestPendingIsSharedAndTokened(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		clustertest.PendingIsSharedAndTokened(t, rs[0].WebhookPending(), rs[1].WebhookPending())
	})
}

// TestDeferredDepartureHeldForComeback: a member leaves a node just after
// its outage (not settled: the departure is deferred) and joins again on
// another node, whose store answer is a first join. The deferred departure
// is held in the store, so that the comeback's member_added is cancelled
// against it instead of sent a second time; once settled the node finds
// the member back and announces nothing. A departure nobody comes back
// from is announced once.
func TestDeferredDepartureHeldForComeback(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, log := observed(t, url, 2, 900*time.Millisecond)
		a, b := rs[0], rs[1]
		ctx := t.Context()
		for _, u := range []string{"back", "gone"} {
			if first, err := b.Presence.Join(ctx, "app", "presence-d", hub.Member{ID: u}, 0); err != nil || !first {
				t.Fatalf("join %s: first %v, err %v", u, first, err)
			}
		}
		b.Down(errors.New("an outage, for the test"))
		b.Link().Up() // back, and not settled for a heartbeat period
		for _, u := range []string{"back", "gone"} {
			if last, err := b.Presence.Leave(ctx, "app", "presence-d", u); err != nil || last {
				t.Fatalf("leave %s: announced %v (err %v), want deferred", u, last, err)
			}
		}
		if first, err := a.Presence.Join(ctx, "app", "presence-d", hub.Member{ID: "back"}, 0); err != nil || !first {
			t.Fatalf("comeback on the other node: first %v, err %v", first, err)
		}
		cancel := []webhook.Op{{Kind: webhook.OpCancel, Key: webhook.RemovedKey("app", "presence-d", "back")}}
		a.WebhookPending().Apply(cancel) // what the comeback's member_added does
		if !cancel[0].Found {
			t.Fatal("the comeback's member_added found no departure held: it would be sent a second time")
		}
		testutil.Eventually(t, redisWait, "the departure announced once settled", func() bool { return len(log()) > 0 })
		if got, want := log(), []string{"1 removed presence-d gone"}; !slices.Equal(got, want) {
			t.Fatalf("reported %q, want %q", got, want)
		}
	})
}

// TestDeadNodesDeferredDepartureAnnounced: see
// clustertest.DeadNodesDeferredDepartureAnnounced.
func TestDeadNodesDeferredDepartureAnnounced(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		removals := &clustertest.Removals{}
		rs, boxes := nodesWith(t, url, 2, 900*time.Millisecond, func(i int, c *cluster.Settings) {
			c.Observer = removals.Of(fmt.Sprint(i + 1))
		})
		clustertest.DeadNodesDeferredDepartureAnnounced(t, rs[0], rs[1], removals, boxes[0], redisWait)
	})
}

// TestSignOutDeferredUntilConfirmed: see
// clustertest.SignOutDeferredUntilConfirmed.
func TestSignOutDeferredUntilConfirmed(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, boxes := nodes(t, url, 2, 900*time.Millisecond)
		clustertest.SignOutDeferredUntilConfirmed(t, rs[0], rs[1], boxes[0], redisWait)
	})
}

// TestOutageDepartureHeldForComeback: see
// clustertest.OutageDepartureHeldForComeback.
func TestOutageDepartureHeldForComeback(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, boxes := nodes(t, url, 2, 900*time.Millisecond)
		clustertest.OutageDepartureHeldForComeback(t, rs[0], rs[1], boxes[0], redisWait)
	})
}

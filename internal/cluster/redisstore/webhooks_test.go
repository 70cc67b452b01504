package redisstore

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
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

// TestPendingIsSharedAndTokened: a hold made on one node is cancelled from
// another; a take only takes its own hold; a batch runs in order.
func TestPendingIsSharedAndTokened(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 2, 0)
		a, b := rs[0].WebhookPending(), rs[1].WebhookPending()
		const key = "vacated:app:c"
		apply := func(p *cluster.Pending, ops ...webhook.Op) []bool {
			p.Apply(ops)
			found := make([]bool, len(ops))
			for i := range ops {
				found[i] = ops[i].Found
			}
			return found
		}
		apply(a, webhook.Op{Kind: webhook.OpHold, Key: key, Token: "1.1", TTL: time.Minute})
		if got := apply(b, webhook.Op{Kind: webhook.OpCancel, Key: key}, webhook.Op{Kind: webhook.OpCancel, Key: key}); !slices.Equal(got, []bool{true, false}) {
			t.Fatalf("cancels from another node found %v, want the hold exactly once", got)
		}
		got := apply(b,
			webhook.Op{Kind: webhook.OpHold, Key: key, Token: "1.2", TTL: time.Minute},
			webhook.Op{Kind: webhook.OpHold, Key: key, Token: "2.1", TTL: time.Minute},
			webhook.Op{Kind: webhook.OpTake, Key: key, Token: "1.2"},
			webhook.Op{Kind: webhook.OpTake, Key: key, Token: "2.1"},
			webhook.Op{Kind: webhook.OpTake, Key: key, Token: "2.1"})
		if want := []bool{false, false, false, true, false}; !slices.Equal(got, want) {
			t.Fatalf("batch found %v, want %v: only the newest hold, taken once", got, want)
		}
	})
}

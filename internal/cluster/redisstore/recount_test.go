package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// countEvent is the event of a subscription count.
const countEvent = "pusher_internal:subscription_count"

// hubbed starts n cluster nodes on url, as nodesWith does, each with a hub
// that the node delivers to and reconciles, as a server's is (unless its
// watch pauses the checks), and a watch on the hub's counts.
func hubbed(t *testing.T, url string, n int, ttl time.Duration) ([]*hub.Hub, []*node, []*watch) {
	hubs, watches := make([]*hub.Hub, n), make([]*watch, n)
	for i := range hubs {
		hubs[i] = hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, uint64(i+1))
		watches[i] = &watch{}
	}
	rs, _ := nodesWith(t, url, n, ttl, func(i int, c *cluster.Settings) {
		c.Deliver = func(m *hub.Message) {
			watches[i].delivered(m)
			hubs[i].Deliver(m)
		}
		c.Reconcile = func(ctx context.Context, removals bool) {
			if !watches[i].paused.Load() {
				hubs[i].Reconcile(ctx, removals)
			}
		}
	})
	for i, h := range hubs {
		st := rs[i].State()
		watches[i].Counts = st.Counts
		st.Counts = watches[i]
		h.SetBroker(rs[i].Node)
		h.SetState(st)
	}
	return hubs, rs, watches
}

// watch is a hub.Counts that notes when the hub reads a count, the last
// subscription count delivered to the hub, and whether a probe was; while
// paused the node's checks (Reconcile) skip the hub.
type watch struct {
	hub.Counts
	paused atomic.Bool
	mu     sync.Mutex
	reads  []time.Time
	last   string
	probed bool
}

func (w *watch) Count(ctx context.Context, app, channel string) (int, error) {
	w.mu.Lock()
	w.reads = append(w.reads, time.Now())
	w.mu.Unlock()
	return w.Counts.Count(ctx, app, channel)
}

func (w *watch) delivered(m *hub.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Event {
	case countEvent:
		w.last = m.Data
	case "probe":
		w.probed = true
	}
}

// probedYet reports whether a probe was delivered.
func (w *watch) probedYet() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.probed
}

// readSince reports whether the hub read a count at t or later.
func (w *watch) readSince(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.reads) > 0 && !w.reads[len(w.reads)-1].Before(t)
}

// lastIs reports whether data was the last subscription count delivered.
func (w *watch) lastIs(data string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last == data
}

// TestReapedNodesCountCorrected: node 0's subscriber is given 1, which
// node 0's settle read finds again, then 2 by node 1, which counted a
// second subscriber and then died. Once it is reaped the store's count is
// 1 again, the count node 0 published itself; node 0's subscriber must
// still be told the 1, since the 2 it was given last came from the dead
// node, which can correct it no more. Node 0's checks are paused until
// node 1 is reaped: one that read the 2 from the store would have node 0
// publish it itself, and the race is the one where none came between (in
// a cluster with no outage none does; here the rounds of the nodes' start
// might).
func TestReapedNodesCountCorrected(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		hubs, rs, w := hubbed(t, url, 3, 900*time.Millisecond)
		w[0].paused.Store(true)
		one, two := `{"subscription_count":1}`, `{"subscription_count":2}`
		ch := hubs[0].Acquire("app", "cache-a")
		testutil.Eventually(t, redisWait, "node 0 subscribed", func() bool {
			rs[1].Publish(&hub.Message{App: "app", Channel: "cache-a", Event: "probe"})
			return w[0].probedYet()
		})
		changed := time.Now()
		hubs[0].CountChanged(ch)
		testutil.Eventually(t, redisWait, "node 0's settle read", func() bool {
			return w[0].lastIs(one) && w[0].readSince(changed.Add(500*time.Millisecond))
		})
		countIs(t, rs[2], 1)
		ch1 := hubs[1].Acquire("app", "cache-a")
		rs[1].FlushCounts() // so that node 1 reads 2 at once, and only 2
		hubs[1].CountChanged(ch1)
		testutil.Eventually(t, redisWait, "node 1's count of 2 at node 0", func() bool { return w[0].lastIs(two) })
		rs[1].Halt()
		countIs(t, rs[2], 1)
		w[0].paused.Store(false) // the checks the reap asks for are still to come
		testutil.Eventually(t, redisWait, "node 0's subscriber told 1 once node 1 is reaped", func() bool {
			return w[0].lastIs(one)
		})
	})
}

// countIs waits until r, a node with no subscriber, reads n.
func countIs(t *testing.T, r *node, n int) {
	t.Helper()
	testutil.Eventually(t, redisWait, "the store's count", func() bool {
		got, err := r.Counts.Count(context.Background(), "app", "cache-a")
		return err == nil && got == n
	})
}

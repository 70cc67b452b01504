package hub

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// farCounts is a Counts store elsewhere whose totals the test sets, as
// another node's flush would.
type farCounts struct {
	mu sync.Mutex
	n  int
}

func (c *farCounts) Subscribed(app, channel string, delta int) {}

func (c *farCounts) Count(context.Context, string, string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, nil
}

func (c *farCounts) Channels(context.Context, string, string) (map[string]int, error) {
	return nil, nil
}

func (c *farCounts) set(n int) {
	c.mu.Lock()
	c.n = n
	c.mu.Unlock()
}

// lockedBroker records what a hub publishes from any goroutine.
type lockedBroker struct {
	mu   sync.Mutex
	msgs []string
}

func (b *lockedBroker) Publish(m *Message) error {
	b.mu.Lock()
	b.msgs = append(b.msgs, m.Data)
	b.mu.Unlock()
	return nil
}
func (b *lockedBroker) Subscribe(_, _ string, ready func()) { ready() }
func (b *lockedBroker) Unsubscribe(_, _ string)             {}

func (b *lockedBroker) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.msgs
	b.msgs = nil
	return out
}

// TestCountSettlesAfterTheLastChange: two nodes subscribe a few
// milliseconds apart and each reads the store before the other's change is
// written, so each first publishes 1. The node reads the count again
// countSettle after its last change and publishes what the store holds
// then: the 2 follows without any further change.
func TestCountSettlesAfterTheLastChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHub(1)
		far := &farCounts{n: 1}
		h.SetState(State{Counts: far})
		b := &lockedBroker{}
		h.SetBroker(b)
		ch := h.Acquire("app", "news")
		h.CountChanged(ch)
		synctest.Wait()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":1}`}) {
			t.Fatalf("published %q at the change, want the count of 1", got)
		}
		far.set(2) // the other node's flush lands
		time.Sleep(countSettle)
		synctest.Wait()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":2}`}) {
			t.Fatalf("published %q %v after the change, want the settled count of 2", got, countSettle)
		}
		time.Sleep(10 * countSettle)
		synctest.Wait()
		if got := b.take(); len(got) != 0 {
			t.Fatalf("published %q once settled, want nothing more", got)
		}
		h.CountChanged(ch) // no race: the settle read finds what was sent
		time.Sleep(2 * countSettle)
		synctest.Wait()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":2}`}) {
			t.Fatalf("published %q for a change nobody raced, want the count once", got)
		}
	})
}

// settledHub returns a hub on a store elsewhere that counts 1 on channel
// news, which the hub counts and has published, read again once settled;
// it is to be called inside a synctest bubble.
func settledHub() (*Hub, *farCounts, *lockedBroker) {
	h := newTestHub(1)
	far := &farCounts{n: 1}
	h.SetState(State{Counts: far})
	b := &lockedBroker{}
	h.SetBroker(b)
	h.CountChanged(h.Acquire("app", "news"))
	time.Sleep(countSettle)
	synctest.Wait()
	return h, far, b
}

// TestReconcileSendsCountsAgain: the count sent while the store was away
// was this node's alone; after the outage the other nodes' shares are
// back and Reconcile sends the cluster's count, on counted channels only.
func TestReconcileSendsCountsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, far, b := settledHub()
		h.Acquire("app", "uncounted")
		b.take()
		far.set(3) // the store is back with the other nodes' subscribers
		h.Reconcile(context.Background(), true)
		synctest.Wait()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":3}`}) {
			t.Fatalf("published %q on Reconcile, want the cluster's count of 3 once", got)
		}
	})
}

// TestReconcileCorrectsAnotherNodesCount: this node published 1, then
// another node's subscriber made it 2 and that node's count was delivered
// here. The other node dies and its share is reaped: the store says 1
// again, what this node last published, yet its subscribers were last
// given 2, so Reconcile sends the 1.
func TestReconcileCorrectsAnotherNodesCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, b := settledHub()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":1}`}) {
			t.Fatalf("published %q, want the count of 1 once", got)
		}
		h.Deliver(&Message{App: "app", Channel: "news", Event: "pusher_internal:subscription_count", Data: `{"subscription_count":2}`})
		h.Reconcile(context.Background(), true)
		synctest.Wait()
		if got := b.take(); !slices.Equal(got, []string{`{"subscription_count":1}`}) {
			t.Fatalf("published %q on Reconcile after another node's 2, want the store's 1", got)
		}
	})
}

package hub

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/pusher"
)

// Subscription counts (Pusher "Subscription counting"): after every change a
// channel's subscribers receive pusher_internal:subscription_count; above
// countBurst subscribers at most once per countEvery.
const (
	countBurst = 100
	countEvery = 5 * time.Second
)

// countSettle is how long after its last change to a channel's
// subscriptions a node with a shared Counts store reads the count again
// and publishes it unless it is what the node published last. Two nodes
// that change a channel at once each read the store before the other's
// change is written (a cluster writes its changes every 100 ms), so each
// may publish a count without the other's; the read of the node that
// changed it last comes after every change is written, and a node whose
// last count was stale publishes the new one, so the count every
// subscriber ends with is the cluster's, at most countSettle and a store
// round trip after the last change.
const countSettle = 500 * time.Millisecond

// countState throttles a channel's subscription_count events; guarded by
// Channel.mu.
type countState struct {
	last     time.Time
	pending  bool        // a count is due later (the throttle)
	reading  bool        // a count is being read from the store
	again    bool        // the count changed while it was read: read it again
	counted  atomic.Bool // CountChanged was called: the app counts the channel
	settle   *time.Timer
	settling bool // the next read is the settle read
	sent     int  // the count last published by this node or delivered here
}

// CountChanged sends ch's new subscription count to its subscribers, now or,
// on a busy channel, when the throttle allows, and with a shared store
// again once the count has settled (countSettle).
func (h *Hub) CountChanged(ch *Channel) {
	ch.mu.Lock()
	ch.extra().counts.counted.Store(true)
	ch.mu.Unlock()
	if h.countDue(ch) {
		h.publishCount(ch)
	}
	if !h.localCounts {
		h.settleLater(ch)
	}
}

// settleLater has the count read and sent again countSettle after the last
// change.
func (h *Hub) settleLater(ch *Channel) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	c := &ch.extra().counts
	if c.settle != nil {
		c.settle.Reset(countSettle)
		return
	}
	c.settle = time.AfterFunc(countSettle, func() { h.settled(ch) })
}

func (h *Hub) settled(ch *Channel) {
	ch.mu.Lock()
	ch.extra().counts.settle = nil
	ch.extra().counts.settling = true
	ch.mu.Unlock()
	if h.countDue(ch) {
		h.publishCount(ch)
	}
}

// countDue reports whether a count may go out now, or arranges for it to go
// out later.
func (h *Hub) countDue(ch *Channel) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.extra().counts.pending {
		return false
	}
	now := h.now()
	if wait := ch.extra().counts.last.Add(countEvery).Sub(now); ch.Count() > countBurst && wait > 0 {
		ch.extra().counts.pending = true
		time.AfterFunc(wait, func() { h.sendLater(ch) })
		return false
	}
	ch.extra().counts.last = now
	return true
}

func (h *Hub) sendLater(ch *Channel) {
	ch.mu.Lock()
	ch.extra().counts.pending = false
	ch.extra().counts.last = h.now()
	ch.mu.Unlock()
	h.publishCount(ch)
}

// publishCount reads the channel's count from the store, off the caller's
// goroutine, and publishes it unless the channel is empty. One read per
// channel is under way at a time; changes meanwhile are covered by one more.
func (h *Hub) publishCount(ch *Channel) {
	ch.mu.Lock()
	c := &ch.extra().counts
	if c.reading {
		c.again = true
		ch.mu.Unlock()
		return
	}
	c.reading = true
	ch.mu.Unlock()
	h.background(func(ctx context.Context) { h.sendCounts(ctx, ch) })
}

func (h *Hub) sendCounts(ctx context.Context, ch *Channel) {
	for {
		n, err := h.counts.Count(ctx, ch.app.id, ch.name)
		if err == nil && n > 0 && h.countNews(ch, n) {
			h.observer.SubscriptionCount(ch.app.id, ch.name, n)
			data := countPrefix + strconv.Itoa(n) + `}`
			h.broker.Publish(&Message{App: ch.app.id, Channel: ch.name, Event: pusher.EventSubscriptionCount, Data: data})
		}
		ch.mu.Lock()
		c := &ch.extra().counts
		again := c.again && err == nil
		c.reading, c.again = again, false
		ch.mu.Unlock()
		if !again {
			return
		}
	}
}

// countNews reports whether count n of ch is to be published: always after
// a change, and after the settle read only if the count this node's
// subscribers were last given, by whichever node, is another (they, and
// the webhook, have this one already unless another node's stale count
// comes later, which that node's settle read corrects).
func (h *Hub) countNews(ch *Channel, n int) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	c := &ch.extra().counts
	settling := c.settling
	c.settling = false
	if settling && n == c.sent {
		return false
	}
	c.sent = n
	return true
}

// countPrefix is the data of a subscription_count event up to the count.
const countPrefix = `{"subscription_count":`

// countDelivered records count data, a subscription_count event delivered
// to ch's subscribers here, as the count they were last given. Another
// node's count goes to them as well as this node's, and after a reap or an
// outage the node that published it may be gone: the settle read and
// recount must compare with what the subscribers have, not with what this
// node published. A channel this node does not count (no extra yet) is
// left alone: neither read looks at it.
func countDelivered(ch *Channel, data string) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(data, countPrefix), "}"))
	x := ch.x.Load()
	if err != nil || x == nil {
		return
	}
	ch.mu.Lock()
	x.counts.sent = n
	ch.mu.Unlock()
}

// recount reads and sends again the count of every channel with local
// subscribers that is counted: after an outage, the counts read meanwhile
// were this node's alone, or failed. Like the settle read, it publishes
// only a count other than the one its subscribers were last given.
func (h *Hub) recount() {
	for _, ch := range h.channels(func(ch *Channel) bool {
		x := ch.x.Load()
		return x != nil && x.counts.counted.Load()
	}) {
		ch.mu.Lock()
		ch.extra().counts.settling = true
		ch.mu.Unlock()
		if h.countDue(ch) {
			h.publishCount(ch)
		}
	}
}

package hub

import (
	"strconv"
	"time"
)

// Subscription counts (Pusher "Subscription counting"): after every change a
// channel's subscribers receive pusher_internal:subscription_count; above
// countBurst subscribers at most once per countEvery.
const (
	countBurst = 100
	countEvery = 5 * time.Second
)

// countState throttles a channel's subscription_count events; guarded by
// Channel.mu.
type countState struct {
	last    time.Time
	pending bool
}

// CountChanged sends ch's new subscription count to its subscribers, now or,
// on a busy channel, when the throttle allows.
func (h *Hub) CountChanged(ch *Channel) {
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

// publishCount publishes the count, unless the channel is empty.
func (h *Hub) publishCount(ch *Channel) {
	n := h.counts.Count(ch.app, ch.name)
	if n == 0 {
		return
	}
	h.observer.SubscriptionCount(ch.app, ch.name, n)
	data := `{"subscription_count":` + strconv.Itoa(n) + `}`
	h.broker.Publish(&Message{App: ch.app, Channel: ch.name, Event: "pusher_internal:subscription_count", Data: data})
}

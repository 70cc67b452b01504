package hub

import (
	"strings"
	"time"

	"github.com/roostproject/roost/internal/pusher"
)

// CacheTTL is how long a cache channel keeps its last event (Pusher docs,
// "Cache channels": 30 minutes).
const CacheTTL = 30 * time.Minute

// Cache keeps the last event published on each cache channel for CacheTTL.
type Cache interface {
	// Put keeps m as its channel's last event; the cache owns m from then
	// on. It must not block.
	Put(m *Message)
	// Get returns a channel's last event and its remaining time to live.
	Get(app, channel string) (m Message, ttl time.Duration, ok bool)
}

// Cached returns the data of the event cached on a cache channel and its
// remaining time to live (the HTTP API's info=cache).
func (h *Hub) Cached(app, channel string) (data string, ttl time.Duration, ok bool) {
	m, ttl, ok := h.cache.Get(app, channel)
	return m.Data, ttl, ok
}

// cachePut keeps m if it is the new last event of a cache channel.
func (h *Hub) cachePut(m *Message) {
	if !cacheable(m) {
		return
	}
	kept := *m
	kept.Except = "" // a late subscriber is never the excluded sender
	h.cache.Put(&kept)
}

// cacheable: only apps' own events on cache channels are cached, never
// member or count events.
func cacheable(m *Message) bool {
	return pusher.KindOf(m.Channel).IsCache() && !strings.HasPrefix(m.Event, "pusher")
}

// CachedFrame returns the frame of the event cached on a cache channel, as
// a new subscriber receives it right after subscription_succeeded.
func (h *Hub) CachedFrame(app, channel string) ([]byte, bool) {
	m, _, ok := h.cache.Get(app, channel)
	if !ok {
		return nil, false
	}
	return h.encode(&m), true
}

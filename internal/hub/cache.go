package hub

import (
	"context"
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
	// Get returns a channel's last event and its remaining time to live;
	// ok is false when nothing is cached.
	Get(ctx context.Context, app, channel string) (m Message, ttl time.Duration, ok bool, err error)
}

// Cached returns the data of the event cached on a cache channel and its
// remaining time to live (the HTTP API's info=cache), waiting for the store
// at most StoreWait.
func (h *Hub) Cached(ctx context.Context, app, channel string) (data string, ttl time.Duration, ok bool, err error) {
	ctx, cancel := h.bounded(ctx)
	defer cancel()
	m, ttl, ok, err := h.cache.Get(ctx, app, channel)
	return m.Data, ttl, ok, unavailable(err)
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
// client events, member events or counts.
func cacheable(m *Message) bool {
	return pusher.KindOf(m.Channel).IsCache() && !m.Terminate &&
		!strings.HasPrefix(m.Event, "pusher") && !strings.HasPrefix(m.Event, pusher.ClientEventPrefix)
}

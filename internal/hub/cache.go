package hub

import (
	"strings"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/pusher"
)

// CacheTTL is how long a cache channel keeps its last event (Pusher docs,
// "Cache channels": 30 minutes).
const CacheTTL = 30 * time.Minute

// sweepEvery is how many cache writes pass between sweeps of expired entries.
const sweepEvery = 1024

// cache keeps the last event published on each cache channel.
type cache struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	writes  int
}

type cacheKey struct{ app, channel string }

type cacheEntry struct {
	m       Message
	expires time.Time
}

func newCache(now func() time.Time) *cache {
	return &cache{now: now, entries: make(map[cacheKey]cacheEntry)}
}

// put remembers m as its channel's last event.
func (c *cache) put(m *Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	kept := *m
	kept.Except = "" // a late subscriber is never the excluded sender
	c.entries[cacheKey{m.App, m.Channel}] = cacheEntry{m: kept, expires: now.Add(CacheTTL)}
	if c.writes++; c.writes%sweepEvery == 0 {
		c.sweep(now)
	}
}

func (c *cache) sweep(now time.Time) {
	for k, e := range c.entries {
		if now.After(e.expires) {
			delete(c.entries, k)
		}
	}
}

// get returns the channel's cached event and how long it stays cached.
func (c *cache) get(app, channel string) (Message, time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[cacheKey{app, channel}]
	ttl := e.expires.Sub(c.now())
	if !ok || ttl <= 0 {
		return Message{}, 0, false
	}
	return e.m, ttl, true
}

// Cached returns the data of the event cached on a cache channel and its
// remaining time to live (the HTTP API's info=cache).
func (h *Hub) Cached(app, channel string) (data string, ttl time.Duration, ok bool) {
	m, ttl, ok := h.cached(app, channel)
	return m.Data, ttl, ok
}

func (h *Hub) cached(app, channel string) (Message, time.Duration, bool) {
	if h.cluster != nil {
		return h.cluster.CacheGet(app, channel)
	}
	return h.cache.get(app, channel)
}

// cachePut keeps m if it is the new last event of a cache channel.
func (h *Hub) cachePut(m *Message) {
	if !cacheable(m) {
		return
	}
	if h.cluster != nil {
		h.cluster.CachePut(m)
		return
	}
	h.cache.put(m)
}

// cacheable: only apps' own events on cache channels are cached, never
// member or count events.
func cacheable(m *Message) bool {
	return pusher.KindOf(m.Channel).IsCache() && !strings.HasPrefix(m.Event, "pusher")
}

// CachedFrame returns the frame of the event cached on a cache channel, as
// a new subscriber receives it right after subscription_succeeded.
func (h *Hub) CachedFrame(app, channel string) ([]byte, bool) {
	m, _, ok := h.cached(app, channel)
	if !ok {
		return nil, false
	}
	return h.encode(&m), true
}

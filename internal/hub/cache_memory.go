package hub

import (
	"context"
	"sync"
	"time"
)

// sweepEvery is how many cache writes pass between sweeps of expired entries.
const sweepEvery = 1024

// MemoryCache keeps the last event of each cache channel in this process:
// the single-node Cache. It is safe for concurrent use.
type MemoryCache struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[channelKey]cacheEntry
	writes  int
}

var _ Cache = (*MemoryCache)(nil)

func (*MemoryCache) inMemory() {}

type cacheEntry struct {
	m       Message
	expires time.Time
}

// NewMemoryCache returns an empty MemoryCache that reads the time from now
// (nil means time.Now).
func NewMemoryCache(now func() time.Time) *MemoryCache {
	if now == nil {
		now = time.Now
	}
	return &MemoryCache{now: now, entries: make(map[channelKey]cacheEntry)}
}

// Put implements Cache; expired entries are swept every sweepEvery writes.
func (c *MemoryCache) Put(m *Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.entries[channelKey{m.App, m.Channel}] = cacheEntry{m: *m, expires: now.Add(CacheTTL)}
	if c.writes++; c.writes%sweepEvery == 0 {
		c.sweep(now)
	}
}

func (c *MemoryCache) sweep(now time.Time) {
	for k, e := range c.entries {
		if now.After(e.expires) {
			delete(c.entries, k)
		}
	}
}

// Get implements Cache.
func (c *MemoryCache) Get(_ context.Context, app, channel string) (Message, time.Duration, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[channelKey{app, channel}]
	ttl := e.expires.Sub(c.now())
	if !ok || ttl <= 0 {
		return Message{}, 0, false, nil
	}
	return e.m, ttl, true, nil
}

package hub

import (
	"context"
	"strings"
)

// memoryCounts is the single-node Counts: it reads the counts the hub keeps
// on its channels anyway, so it costs no memory of its own.
type memoryCounts struct{ h *Hub }

var _ Counts = memoryCounts{}

func (memoryCounts) inMemory() {}

// Subscribed does nothing: Acquire and Release keep Channel.count.
func (memoryCounts) Subscribed(app, channel string, delta int) {}

// Count implements Counts.
func (c memoryCounts) Count(_ context.Context, app, channel string) (int, error) {
	if ch := c.h.lookup(app, channel); ch != nil {
		return ch.Count(), nil
	}
	return 0, nil
}

// Channels implements Counts.
func (c memoryCounts) Channels(_ context.Context, app, prefix string) (map[string]int, error) {
	h := c.h
	h.mu.RLock()
	defer h.mu.RUnlock()
	a := h.apps[app]
	if a == nil {
		return map[string]int{}, nil
	}
	counts := make(map[string]int, a.table.n) // sized once: no rehash while the lock is held
	for ch := range a.table.all() {
		if strings.HasPrefix(ch.name, prefix) {
			counts[ch.name] = ch.Count()
		}
	}
	return counts, nil
}

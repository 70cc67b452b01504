package hub

import "strings"

// memoryCounts is the single-node Counts: it reads the counts the hub keeps
// on its channels anyway, so it costs no memory of its own.
type memoryCounts struct{ h *Hub }

var _ Counts = memoryCounts{}

// Subscribed does nothing: Acquire and Release keep Channel.count.
func (memoryCounts) Subscribed(app, channel string, delta int) {}

// Count implements Counts.
func (c memoryCounts) Count(app, channel string) int {
	if ch := c.h.lookup(app, channel); ch != nil {
		return ch.Count()
	}
	return 0
}

// Channels implements Counts.
func (c memoryCounts) Channels(app, prefix string) map[string]int {
	h := c.h
	h.mu.RLock()
	defer h.mu.RUnlock()
	counts := make(map[string]int)
	for name, ch := range h.apps[app] {
		if strings.HasPrefix(name, prefix) {
			counts[name] = ch.Count()
		}
	}
	return counts
}

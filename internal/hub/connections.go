package hub

import "sync"

// connections counts this node's connections per app (the app's
// max_connections limit is per node).
type connections struct {
	mu    sync.Mutex
	count map[string]int
}

// Connected counts a new connection of app and returns the app's total.
func (h *Hub) Connected(app string) int {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count[app]++
	return c.count[app]
}

// Disconnected undoes Connected.
func (h *Hub) Disconnected(app string) {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count[app]--; c.count[app] <= 0 {
		delete(c.count, app)
	}
}

// Connections returns how many connections app has on this node.
func (h *Hub) Connections(app string) int {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count[app]
}

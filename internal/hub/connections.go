package hub

import "sync"

// connections counts this node's connections per app. An app's
// max_connections limit counts them on every node of a cluster: the
// others' share comes from the state's Tally (AppConnections).
type connections struct {
	mu    sync.Mutex // guards count, and orders the Tally's Here calls
	count map[string]int
}

// Tally is the count of each app's connections on the other nodes of a
// cluster, which apps[].max_connections adds to this node's own. Neither
// method waits for a store or allocates for an app seen before: Here is
// called for every connection opened or closed, Elsewhere by every
// handshake of an app with a limit, on the epoll loops too.
type Tally interface {
	// Here tells that app now has n connections on this node.
	Here(app string, n int)
	// Elsewhere returns app's connections on the other live nodes, as
	// last heard.
	Elsewhere(app string) int
}

// alone is the Tally of a single node: there is nobody else.
type alone struct{}

func (alone) Here(string, int)     {}
func (alone) Elsewhere(string) int { return 0 }

// Connected counts a new connection of app and returns the app's total on
// this node.
func (h *Hub) Connected(app string) int {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count[app]++
	n := c.count[app]
	h.tally.Here(app, n)
	return n
}

// Disconnected undoes Connected.
func (h *Hub) Disconnected(app string) {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count[app]--
	n := c.count[app]
	if n <= 0 {
		delete(c.count, app)
	}
	h.tally.Here(app, max(n, 0))
}

// Connections returns how many connections app has on this node.
func (h *Hub) Connections(app string) int {
	c := &h.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count[app]
}

// AppConnections returns how many connections app has across the cluster
// (on one node, on this node): this node's own, counted live, and the
// other nodes' as last heard (docs/cluster.md, "Connection limits"). It is
// the figure an app's max_connections is checked against.
func (h *Hub) AppConnections(app string) int {
	return h.Connections(app) + h.tally.Elsewhere(app)
}

package hub

import "sync"

// WatchlistPrefix starts the name of the hub-internal channel through which
// the watchers of a user learn that it came online or went offline (Pusher
// "User authentication", watchlist). Clients cannot name it: '#' is reserved.
const WatchlistPrefix = "#watchlist-"

// users counts connections per app and signed-in connections per user.
type users struct {
	mu     sync.Mutex
	online map[userKey]int // signed-in connections per user
	conns  map[string]int  // connections per app
}

type userKey struct{ app, user string }

// SignIn records a signed-in connection of user; first reports whether the
// user just came online.
func (h *Hub) SignIn(app, user string) (first bool) {
	first = h.users.signIn(app, user)
	if h.cluster != nil {
		first = h.cluster.SignIn(app, user, first)
	}
	return first
}

func (u *users) signIn(app, user string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := userKey{app, user}
	u.online[k]++
	return u.online[k] == 1
}

// SignOut undoes a SignIn; last reports whether the user just went offline.
func (h *Hub) SignOut(app, user string) (last bool) {
	last = h.users.signOut(app, user)
	if h.cluster != nil {
		last = h.cluster.SignOut(app, user, last)
	}
	return last
}

func (u *users) signOut(app, user string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := userKey{app, user}
	if u.online[k]--; u.online[k] > 0 {
		return false
	}
	delete(u.online, k)
	return true
}

// Online returns those of ids that have a signed-in connection.
func (h *Hub) Online(app string, ids []string) []string {
	local := h.users.onlineOf(app, ids)
	if h.cluster != nil {
		return h.cluster.Online(app, ids, local)
	}
	return local
}

func (u *users) onlineOf(app string, ids []string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, id := range ids {
		if u.online[userKey{app, id}] > 0 {
			out = append(out, id)
		}
	}
	return out
}

// Connected counts a new connection of app and returns the app's total.
func (h *Hub) Connected(app string) int {
	u := &h.users
	u.mu.Lock()
	defer u.mu.Unlock()
	u.conns[app]++
	return u.conns[app]
}

// Disconnected undoes Connected.
func (h *Hub) Disconnected(app string) {
	u := &h.users
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.conns[app]--; u.conns[app] <= 0 {
		delete(u.conns, app)
	}
}

// Connections returns how many connections app has on this node.
func (h *Hub) Connections(app string) int {
	u := &h.users
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.conns[app]
}

package hub

// WatchlistPrefix starts the name of the hub-internal channel through which
// the watchers of a user learn that it came online or went offline (Pusher
// "User authentication", watchlist). Clients cannot name it: '#' is reserved.
const WatchlistPrefix = "#watchlist-"

// Users counts the signed-in connections of each user (Pusher "User
// authentication"), to tell watchers when a user comes online or goes
// offline.
type Users interface {
	// SignIn records a signed-in connection of user; first reports whether
	// the user just came online.
	SignIn(app, user string) (first bool)
	// SignOut undoes a SignIn; last reports whether the user just went
	// offline.
	SignOut(app, user string) (last bool)
	// Online returns those of ids that have a signed-in connection.
	Online(app string, ids []string) []string
}

// SignIn records a signed-in connection of user; first reports whether the
// user just came online.
func (h *Hub) SignIn(app, user string) (first bool) { return h.users.SignIn(app, user) }

// SignOut undoes a SignIn; last reports whether the user just went offline.
func (h *Hub) SignOut(app, user string) (last bool) { return h.users.SignOut(app, user) }

// Online returns those of ids that have a signed-in connection.
func (h *Hub) Online(app string, ids []string) []string { return h.users.Online(app, ids) }

package hub

import (
	"context"
	"encoding/json"

	"github.com/roostproject/roost/internal/pusher"
)

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
	SignIn(ctx context.Context, app, user string) (first bool, err error)
	// SignOut undoes a SignIn; last reports whether the user just went
	// offline.
	SignOut(ctx context.Context, app, user string) (last bool, err error)
	// Online returns those of ids that have a signed-in connection.
	Online(ctx context.Context, app string, ids []string) ([]string, error)
}

// SignIn records a signed-in connection of user, tells the user's watchers
// if it just came online, and then calls done on shard's goroutine with nil
// or an ErrUnavailable.
func (h *Hub) SignIn(app, user string, shard int, done func(error)) {
	var err error
	h.async(shard, func(ctx context.Context) {
		first, serr := h.users.SignIn(ctx, app, user)
		if err = unavailable(serr); err == nil && first {
			h.broker.Publish(Watchlist(app, user, true))
		}
	}, func() { done(err) })
}

// SignOut undoes a SignIn without waiting for the store, and tells the
// user's watchers if it just went offline. It may be called from any
// goroutine.
func (h *Hub) SignOut(app, user string) {
	h.background(func(ctx context.Context) {
		if last, err := h.users.SignOut(ctx, app, user); err == nil && last {
			h.broker.Publish(Watchlist(app, user, false))
		}
	})
}

// The names of Watchlist's events (Pusher docs, "Watchlist online status").
const (
	watchOnline  = "online"
	watchOffline = "offline"
)

// Watchlist returns the event that tells the watchers of user that it came
// online (or went offline).
func Watchlist(app, user string, online bool) *Message {
	name := watchOffline
	if online {
		name = watchOnline
	}
	type event struct {
		Name    string   `json:"name"`
		UserIDs []string `json:"user_ids"`
	}
	data, _ := json.Marshal(map[string][]event{"events": {{name, []string{user}}}})
	return &Message{App: app, Channel: WatchlistPrefix + user, Event: pusher.EventWatchlistEvents, Data: string(data)}
}

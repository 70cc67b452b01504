package session

import (
	"encoding/json"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// user is the identity a connection signed in with.
type user struct {
	id   string
	info json.RawMessage
}

// signin handles pusher:signin (Pusher "User authentication"): a valid
// signature over "socket_id::user::user_data" gives the connection its user
// and joins it to the user's server-to-user channel; anything else is 4009.
// The store counts the user's connections (hub.SignIn, which may wait for
// the cluster): signin_success and the watchlist's state follow its
// answer, and every message the client sends meanwhile waits.
func (s Call) signin(msg pusher.Message) {
	req, err := pusher.ParseSignin(msg.Data)
	if err != nil {
		s.unauthorized(err.Error())
		return
	}
	if !auth.CheckUser(s.app.Key, s.app.Secret, s.SocketID(), req.UserData, req.Auth) {
		s.unauthorized("invalid signature for pusher:signin")
		return
	}
	ud, err := pusher.ParseUserData(req.UserData)
	if err != nil {
		s.unauthorized(err.Error())
		return
	}
	if u := s.signedIn(); u != nil {
		if u.id != ud.ID {
			s.unauthorized("already signed in as another user")
			return
		}
		s.send(pusher.AppendSigninSuccess(newMessage(), req.UserData))
		return
	}
	s.becomeUser(ud.ID, userInfo(req.UserData))
	s.x.signing = awaitingStore
	app, id := s.app.ID, ud.ID
	s.env.Hub.SignIn(app, id, s.conn.Shard(), func(err error) {
		if s.closed {
			if err == nil {
				s.env.Hub.SignOut(app, id) // Closed left it to this answer
			}
			return
		}
		s.afterSignin(req.UserData, ud.Watchlist, err)
	})
}

// afterSignin answers a sign-in once the store has: signin_success and the
// watchlist's state, or a pusher:error when the store did not answer (the
// connection stays up, not signed in, and may try again). Then the
// messages that waited are handled.
func (s Call) afterSignin(userData string, watchlist []string, err error) {
	if err != nil {
		s.dropUser()
		s.sendError(pusher.NoCode, "sign-in failed, try again: "+err.Error())
		s.resume()
		return
	}
	s.send(pusher.AppendSigninSuccess(newMessage(), userData))
	s.watch(watchlist)
}

// becomeUser gives the connection its user and joins it to the user's
// server-to-user channel.
func (s Call) becomeUser(id string, info json.RawMessage) {
	s.ext().user = &user{id: id, info: info}
	s.attach(s.env.Hub.Acquire(s.app.ID, hub.ServerToUserPrefix+id))
}

// dropUser undoes becomeUser after a sign-in the store did not take.
func (s Call) dropUser() {
	if i := s.find(hub.ServerToUserPrefix + s.x.user.id); i >= 0 {
		s.leave(i)
	}
	s.x.user, s.x.signing = nil, noSignin
}

// watch subscribes the connection to the online/offline changes of the
// users in its watchlist and tells it which of them are online now; the
// sign-in is complete once it has.
func (s Call) watch(ids []string) {
	if len(ids) == 0 {
		s.x.signing = noSignin
		s.resume()
		return
	}
	if len(ids) > pusher.MaxWatchlist {
		s.sendError(pusher.WatchlistLimit, "a watchlist may name at most 100 users; only the first 100 are watched")
		ids = ids[:pusher.MaxWatchlist]
	}
	h := s.env.Hub
	chans := make([]*hub.Channel, len(ids))
	for i, id := range ids {
		chans[i] = h.Acquire(s.app.ID, hub.WatchlistPrefix+id)
		s.attach(chans[i])
	}
	s.x.signing = awaitingWatchlist
	h.Watching(s.app.ID, chans, s.conn.Shard(), func(online []string, err error) {
		if s.closed {
			return
		}
		if err != nil {
			s.sendError(pusher.NoCode, "the watchlist's state is unknown: "+err.Error())
		} else {
			s.send(pusher.AppendWatchlistEvents(newMessage(), online, nil))
		}
		s.x.signing = noSignin
		s.resume()
	})
}

func (s Call) unauthorized(message string) {
	s.sendError(pusher.Unauthorized, message)
	s.conn.Close(ws.CloseCode(pusher.Unauthorized), "unauthorized")
}

// signout forgets the user when the connection closes; the store is told
// and, if it was the user's last connection, its watchers. A sign-in the
// store has not answered yet is undone by its answer instead.
func (s Call) signout() {
	u := s.signedIn()
	if u == nil {
		return
	}
	if s.x.signing != awaitingStore {
		s.env.Hub.SignOut(s.app.ID, u.id)
	}
	s.x.user = nil
}

// userInfo is the user_info object of user_data, used as the presence
// member's info when a signed-in connection joins without channel_data.
func userInfo(userData string) json.RawMessage {
	var v struct {
		Info json.RawMessage `json:"user_info"`
	}
	if json.Unmarshal([]byte(userData), &v) != nil {
		return nil
	}
	return v.Info
}

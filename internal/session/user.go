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
	if s.user != nil && s.user.id != ud.ID {
		s.unauthorized("already signed in as another user")
		return
	}
	first := s.user == nil
	if first {
		s.becomeUser(ud.ID, userInfo(req.UserData))
	}
	s.send(pusher.AppendSigninSuccess(nil, req.UserData))
	if first {
		s.watch(ud.Watchlist)
	}
}

// becomeUser gives the connection its user: it joins the user's
// server-to-user channel and, if the user was offline, tells its watchers.
func (s Call) becomeUser(id string, info json.RawMessage) {
	h := s.env.Hub
	s.user = &user{id: id, info: info}
	s.attach(h.Acquire(s.app.ID, hub.ServerToUserPrefix+id), "")
	if h.SignIn(s.app.ID, id) {
		s.watchEvent(id, "online")
	}
}

// watch subscribes the connection to the online/offline changes of the
// users in its watchlist and tells it which of them are online now.
func (s Call) watch(ids []string) {
	if len(ids) == 0 {
		return
	}
	if len(ids) > pusher.MaxWatchlist {
		s.sendError(pusher.WatchlistLimit, "a watchlist may name at most 100 users; only the first 100 are watched")
		ids = ids[:pusher.MaxWatchlist]
	}
	h := s.env.Hub
	for _, id := range ids {
		s.attach(h.Acquire(s.app.ID, hub.WatchlistPrefix+id), "")
	}
	s.send(pusher.AppendWatchlistEvents(nil, h.Online(s.app.ID, ids), nil))
}

// watchEvent tells the watchers of user id that it came online or went
// offline.
func (s Call) watchEvent(id, name string) {
	type event struct {
		Name    string   `json:"name"`
		UserIDs []string `json:"user_ids"`
	}
	data, _ := json.Marshal(map[string][]event{"events": {{name, []string{id}}}})
	p := hub.Publication{Channels: []string{hub.WatchlistPrefix + id}, Event: "pusher_internal:watchlist_events", Data: string(data)}
	if err := s.env.Hub.Publish(s.app.ID, p); err != nil {
		s.env.Logger.Warn("watchlist event not published", "user", id, "err", err)
	}
}

func (s Call) unauthorized(message string) {
	s.sendError(pusher.Unauthorized, message)
	s.conn.Close(ws.CloseCode(pusher.Unauthorized), "unauthorized")
}

// signout forgets the user when the connection closes and, if it was the
// user's last connection, tells its watchers.
func (s Call) signout() {
	if s.user == nil {
		return
	}
	if s.env.Hub.SignOut(s.app.ID, s.user.id) {
		s.watchEvent(s.user.id, "offline")
	}
	s.user = nil
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

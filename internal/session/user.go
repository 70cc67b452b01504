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
func (s *Session) signin(msg pusher.Message) {
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
	if s.user == nil {
		s.user = &user{id: ud.ID, info: userInfo(req.UserData)}
		s.attach(s.env.Hub.Acquire(s.app.ID, hub.ServerToUserPrefix+ud.ID), "")
	}
	data, _ := json.Marshal(map[string]string{"user_data": req.UserData})
	s.send(pusher.AppendEvent(nil, "pusher:signin_success", "", string(data)))
}

func (s *Session) unauthorized(message string) {
	s.sendError(pusher.Unauthorized, message)
	s.conn.Close(ws.CloseCode(pusher.Unauthorized), "unauthorized")
}

// signout forgets the user when the connection closes.
func (s *Session) signout() { s.user = nil }

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

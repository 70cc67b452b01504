package session

import (
	"encoding/json"
	"errors"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

var errNotThisUser = errors.New("server-to-user channels are joined by signing in as that user")

// joinPresence subscribes to a presence channel as the member described by
// channelData, or as the signed-in user when channelData is empty.
func (s Call) joinPresence(name, channelData string) {
	m, err := s.member(channelData)
	if err != nil {
		s.subscriptionError(name, "InvalidChannelData", err.Error(), 400)
		return
	}
	ch := s.env.Hub.Acquire(s.app.ID, name)
	s.whenReady(ch, func() { s.joinedPresence(ch, m) })
}

// joinedPresence makes the connection a member of a ready presence channel.
func (s Call) joinedPresence(ch *hub.Channel, m pusher.Member) {
	h := s.env.Hub
	first, err := h.Join(ch, m.UserID, string(m.UserInfo), s.app.MaxPresenceMembers)
	if err != nil {
		h.Release(ch)
		s.subscriptionError(ch.Name(), "LimitReached", err.Error(), 403)
		return
	}
	s.attach(ch, m.UserID)
	s.succeeded(ch)
	s.afterJoin(ch)
	if first {
		s.memberEvent(ch, "pusher_internal:member_added", memberJSON(m.UserID, string(m.UserInfo)), s.SocketID())
	}
}

// member parses presence channel_data, or takes the signed-in user's
// identity when there is none, checking the app's limits either way.
func (s Call) member(channelData string) (m pusher.Member, err error) {
	if channelData == "" && s.user != nil {
		m = pusher.Member{UserID: s.user.id, UserInfo: s.user.info}
	} else if m, err = pusher.ParseChannelData(channelData); err != nil {
		return m, err
	}
	if max := s.app.MaxPresenceUserInfo; max > 0 && len(m.UserInfo) > max {
		return m, errors.New("user_info is larger than the app allows")
	}
	return m, nil
}

// memberEvent publishes a member_added/member_removed event on ch.
func (s Call) memberEvent(ch *hub.Channel, event, data, except string) {
	err := s.env.Hub.Publish(s.app.ID, hub.Publication{Channels: []string{ch.Name()}, Event: event, Data: data, SocketID: except})
	if err != nil {
		s.env.Logger.Warn("presence event not published", "channel", ch.Name(), "event", event, "err", err)
	}
}

// memberJSON is the data of member_added ({user_id, user_info}) or, with no
// info, of member_removed ({user_id}).
func memberJSON(id, info string) string {
	v := map[string]any{"user_id": id}
	if info != "" {
		v["user_info"] = json.RawMessage(info)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

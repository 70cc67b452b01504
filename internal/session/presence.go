package session

import (
	"errors"
	"slices"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

var errNotThisUser = errors.New("server-to-user channels are joined by signing in as that user")

// joinPresence subscribes to a presence channel as the member described by
// channelData, or as the signed-in user when channelData is empty. Once
// the channel is ready, the store records the member (hub.Join, which may
// wait for the cluster); a client event on the channel meanwhile waits.
func (s Call) joinPresence(name, channelData string) {
	m, err := s.member(channelData)
	if err != nil {
		s.subscriptionError(name, "InvalidChannelData", err.Error(), 400)
		return
	}
	h, shard := s.env.Hub, s.conn.Shard()
	self := hub.Member{ID: m.UserID, Info: string(m.UserInfo)}
	ch := h.Acquire(s.app.ID, name)
	s.whenReady(ch, func(w uint16) {
		h.Join(ch, shard, self, s.app.MaxPresenceMembers, s.SocketID(), func(err error) {
			s.joinedPresence(ch, w, self, err)
		})
	})
}

// joinedPresence answers a presence join once the store has: the
// connection becomes a member, or gets a subscription_error. A join
// cancelled meanwhile (unsubscribe, close) is undone in the store.
func (s Call) joinedPresence(ch *hub.Channel, w uint16, self hub.Member, err error) {
	h := s.env.Hub
	if !s.dropPending(ch, w) {
		if err == nil {
			h.Leave(ch, self.ID)
		}
		return
	}
	if err != nil {
		h.Release(ch)
		typ, status := "Unavailable", 503
		if errors.Is(err, hub.ErrChannelFull) {
			typ, status = "LimitReached", 403
		}
		s.subscriptionError(ch.Name(), typ, err.Error(), status)
		s.resume()
		return
	}
	s.joined(ch, &self)
}

// member parses presence channel_data, or takes the signed-in user's
// identity when there is none, checking the app's limits either way.
func (s Call) member(channelData string) (m pusher.Member, err error) {
	if u := s.signedIn(); channelData == "" && u != nil {
		m = pusher.Member{UserID: u.id, UserInfo: u.info}
	} else if m, err = pusher.ParseChannelData(channelData); err != nil {
		return m, err
	}
	if max := s.app.MaxPresenceUserInfo; max > 0 && len(m.UserInfo) > max {
		return m, errors.New("user_info is larger than the app allows")
	}
	return m, nil
}

// presenceJoin is a presence channel the connection joined, with the user id it
// joined as.
type presenceJoin struct {
	ch *hub.Channel
	id string
}

// memberIn returns the user id the connection joined ch as, or "" when ch
// is not a presence channel it has joined.
func (s *Session) memberIn(ch *hub.Channel) string {
	if s.x != nil {
		for _, m := range s.x.members {
			if m.ch == ch {
				return m.id
			}
		}
	}
	return ""
}

// joinedAs records that the connection joined presence channel ch as user id.
func (s Call) joinedAs(ch *hub.Channel, id string) {
	x := s.ext()
	x.members = append(x.members, presenceJoin{ch, id})
}

// leftAs forgets the member the connection joined ch as and returns its
// user id, or "" when it has none there.
func (s Call) leftAs(ch *hub.Channel) string {
	if s.x == nil {
		return ""
	}
	for i, m := range s.x.members {
		if m.ch == ch {
			s.x.members = slices.Delete(s.x.members, i, i+1)
			s.tidy()
			return m.id
		}
	}
	return ""
}

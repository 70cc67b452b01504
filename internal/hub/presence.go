package hub

import (
	"encoding/json"
	"errors"
	"iter"
)

// ErrChannelFull is returned by Join when a presence channel already has its
// maximum number of distinct members.
var ErrChannelFull = errors.New("presence channel is full")

// Member is one presence member: a user id and its user_info JSON ("" for none).
type Member struct {
	ID   string
	Info string
}

// Presence keeps the members of presence channels (Pusher "Presence
// channels"): one member per user id, however many connections it has.
type Presence interface {
	// Join records one more connection of m.ID on a presence channel and
	// reports whether it is the user's first one, when member_added is due.
	// The first connection's info is the one kept. ErrChannelFull means the
	// channel already has max distinct members (max 0: no limit).
	Join(app, channel string, m Member, max int) (first bool, err error)
	// Leave undoes one Join and reports whether it was the user's last
	// connection, when member_removed is due.
	Leave(app, channel, user string) (last bool)
	// Members lists a channel's members in user id order.
	Members(app, channel string) []Member
}

// Join records one more connection of user on presence channel ch; first
// reports the user's first connection (cluster-wide), when member_added is
// due. ErrChannelFull means the channel has its maximum of members.
func (h *Hub) Join(ch *Channel, user, info string, max int) (first bool, err error) {
	first, err = h.presence.Join(ch.app, ch.name, Member{ID: user, Info: info}, max)
	if first {
		h.observer.MemberAdded(ch.app, ch.name, user)
	}
	return first, err
}

// Leave undoes Join; last reports the user's last connection, when
// member_removed is due.
func (h *Hub) Leave(ch *Channel, user string) (last bool) {
	if last = h.presence.Leave(ch.app, ch.name, user); last {
		h.observer.MemberRemoved(ch.app, ch.name, user)
	}
	return last
}

// Members returns a presence channel's members, by user id.
func (h *Hub) Members(app, channel string) []Member {
	return h.presence.Members(app, channel)
}

// MemberInfos returns a presence channel's members, in user id order, as
// user id and user_info pairs (nil info when the member gave none), for
// subscription_succeeded.
func (h *Hub) MemberInfos(ch *Channel) iter.Seq2[string, json.RawMessage] {
	snap := h.Members(ch.app, ch.name)
	return func(yield func(string, json.RawMessage) bool) {
		for _, m := range snap {
			var info json.RawMessage
			if m.Info != "" {
				info = json.RawMessage(m.Info)
			}
			if !yield(m.ID, info) {
				return
			}
		}
	}
}

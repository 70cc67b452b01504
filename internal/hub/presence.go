package hub

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/roostproject/roost/internal/pusher"
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
	Join(ctx context.Context, app, channel string, m Member, max int) (first bool, err error)
	// Leave undoes one Join and reports whether it was the user's last
	// connection, when member_removed is due.
	Leave(ctx context.Context, app, channel, user string) (last bool, err error)
	// Members lists a channel's members in user id order.
	Members(ctx context.Context, app, channel string) ([]Member, error)
}

// Join makes m a member of presence channel ch for one more connection and
// then calls done on shard's goroutine with nil, ErrChannelFull or an
// ErrUnavailable. First the node learns the channel's members if it does
// not know them yet (see view). When this is the user's first connection
// across the cluster, member_added is published to everyone but except
// (the joiner's socket_id).
func (h *Hub) Join(ch *Channel, shard int, m Member, max int, except string, done func(error)) {
	var err error
	h.async(shard, func(ctx context.Context) {
		if err = h.learn(ctx, ch); err != nil {
			return
		}
		first, jerr := h.presence.Join(ctx, ch.app.id, ch.name, m, max)
		if err = unavailable(jerr); err == nil && first {
			h.observer.MemberAdded(ch.app.id, ch.name, m.ID)
			if c := h.Console(); c != nil {
				c.MemberAdded(ch.app.id, ch.name, m.ID)
			}
			h.broker.Publish(MemberAdded(ch.app.id, ch.name, m, except))
		}
	}, func() { done(err) })
}

// Leave undoes one Join without waiting for the store, and publishes
// member_removed if that was the user's last connection across the
// cluster. It may be called from any goroutine.
func (h *Hub) Leave(ch *Channel, user string) {
	app, name := ch.app.id, ch.name
	h.background(func(ctx context.Context) {
		if last, err := h.presence.Leave(ctx, app, name, user); err == nil && last {
			h.observer.MemberRemoved(app, name, user)
			if c := h.Console(); c != nil {
				c.MemberRemoved(app, name, user)
			}
			h.broker.Publish(MemberRemoved(app, name, user))
		}
	})
}

// Members returns a presence channel's members across the cluster, in user
// id order, waiting for the store at most StoreWait.
func (h *Hub) Members(ctx context.Context, app, channel string) ([]Member, error) {
	ctx, cancel := h.bounded(ctx)
	defer cancel()
	members, err := h.presence.Members(ctx, app, channel)
	return members, unavailable(err)
}

// MemberAdded returns the pusher_internal:member_added event of m on a
// presence channel, not to be delivered to except (a socket_id, or "").
func MemberAdded(app, channel string, m Member, except string) *Message {
	return &Message{App: app, Channel: channel, Event: pusher.EventMemberAdded, Data: memberData(m), Except: except}
}

// MemberRemoved returns the pusher_internal:member_removed event of user on
// a presence channel.
func MemberRemoved(app, channel, user string) *Message {
	return &Message{App: app, Channel: channel, Event: pusher.EventMemberRemoved, Data: memberData(Member{ID: user})}
}

// memberJSON is the data of a member event: {user_id, user_info}, without
// user_info when there is none (always so for member_removed).
type memberJSON struct {
	UserID   string          `json:"user_id"`
	UserInfo json.RawMessage `json:"user_info,omitempty"`
}

func memberData(m Member) string {
	b, _ := json.Marshal(memberJSON{UserID: m.ID, UserInfo: json.RawMessage(m.Info)})
	return string(b)
}

// memberOf reads the member a member event is about.
func memberOf(data string) (Member, bool) {
	var v memberJSON
	if json.Unmarshal([]byte(data), &v) != nil || v.UserID == "" {
		return Member{}, false
	}
	return Member{ID: v.UserID, Info: string(v.UserInfo)}, true
}

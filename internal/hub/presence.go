package hub

import (
	"encoding/json"
	"errors"
	"iter"
	"sort"
)

// ErrChannelFull is returned by Join when a presence channel already has its
// maximum number of distinct members.
var ErrChannelFull = errors.New("presence channel is full")

// Join records one more connection of user on the presence channel. first
// reports whether it is the user's first connection there, the moment
// Pusher sends member_added (docs/protocol.md, "Presence channels"). The
// first connection's user_info is the one the channel keeps.
func (c *Channel) join(userID, info string, max int) (first bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.members[userID]; m != nil {
		m.conns++
		return false, nil
	}
	if max > 0 && len(c.members) >= max {
		return false, ErrChannelFull
	}
	if c.members == nil {
		c.members = make(map[string]*member)
	}
	c.members[userID] = &member{conns: 1, info: info}
	return true, nil
}

// Leave removes one connection of user; last reports whether it was the
// user's last one, the moment Pusher sends member_removed.
func (c *Channel) leave(userID string) (last bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.members[userID]
	if m == nil {
		return false
	}
	if m.conns--; m.conns > 0 {
		return false
	}
	delete(c.members, userID)
	return true
}

// localMembers returns this node's members of the channel, by user id.
func (c *Channel) localMembers() []Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Member, 0, len(c.members))
	for id, m := range c.members {
		out = append(out, Member{ID: id, Info: m.info})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Join records one more connection of user on presence channel ch; first
// reports the user's first connection (cluster-wide), when member_added is
// due. ErrChannelFull means the channel has its maximum of members.
func (h *Hub) Join(ch *Channel, user, info string, max int) (first bool, err error) {
	first, err = ch.join(user, info, max)
	if err != nil || h.cluster == nil {
		return first, err
	}
	first, err = h.cluster.Join(ch.app, ch.name, user, info, max, first)
	if err != nil {
		ch.leave(user)
	}
	return first, err
}

// Leave undoes Join; last reports the user's last connection, when
// member_removed is due.
func (h *Hub) Leave(ch *Channel, user string) (last bool) {
	last = ch.leave(user)
	if h.cluster != nil {
		last = h.cluster.Leave(ch.app, ch.name, user, last)
	}
	return last
}

// Members returns a presence channel's members, by user id.
func (h *Hub) Members(app, channel string) []Member {
	var local []Member
	if ch := h.lookup(app, channel); ch != nil {
		local = ch.localMembers()
	}
	if h.cluster != nil {
		return h.cluster.Members(app, channel, local)
	}
	return local
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

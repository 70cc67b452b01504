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
// Pusher sends member_added (PROTOCOL.md "presence-"). The first connection's
// user_info is the one the channel keeps.
func (c *Channel) Join(userID, info string, max int) (first bool, err error) {
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
func (c *Channel) Leave(userID string) (last bool) {
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

// Members calls fn for every member, in user id order, under the channel's
// lock (fn must not call back into the channel).
func (c *Channel) Members(fn func(userID, info string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.members))
	for id := range c.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fn(id, c.members[id].info)
	}
}

// MemberCount returns the number of distinct presence members.
func (c *Channel) MemberCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.members)
}

// MemberInfos returns a snapshot of the members, in user id order, as user
// id and user_info pairs (nil info when the member gave none).
func (c *Channel) MemberInfos() iter.Seq2[string, json.RawMessage] {
	type pair struct{ id, info string }
	var snap []pair
	c.Members(func(id, info string) { snap = append(snap, pair{id, info}) })
	return func(yield func(string, json.RawMessage) bool) {
		for _, p := range snap {
			var info json.RawMessage
			if p.info != "" {
				info = json.RawMessage(p.info)
			}
			if !yield(p.id, info) {
				return
			}
		}
	}
}

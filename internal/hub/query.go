package hub

import (
	"sort"
	"strings"
)

// ServerToUserPrefix starts the name of the channel through which a signed-in
// user's connections receive events sent to that user (Pusher "User
// authentication"; the SDK's sendToUser publishes there).
const ServerToUserPrefix = "#server-to-user-"

// Channel reports the state of one channel.
func (h *Hub) Channel(app, name string) ChannelStats {
	ch := h.lookup(app, name)
	if ch == nil {
		return ChannelStats{Name: name}
	}
	return stats(ch)
}

// Channels reports every occupied channel of app whose name starts with
// prefix, sorted by name. Server-to-user channels are not listed.
func (h *Hub) Channels(app, prefix string) []ChannelStats {
	h.mu.RLock()
	chans := make([]*Channel, 0, len(h.apps[app]))
	for name, ch := range h.apps[app] {
		if strings.HasPrefix(name, prefix) && !strings.HasPrefix(name, "#") {
			chans = append(chans, ch)
		}
	}
	h.mu.RUnlock()
	out := make([]ChannelStats, 0, len(chans))
	for _, ch := range chans {
		out = append(out, stats(ch))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Users returns the ids of the members of a presence channel.
func (h *Hub) Users(app, channel string) []string {
	ch := h.lookup(app, channel)
	if ch == nil {
		return nil
	}
	var ids []string
	ch.Members(func(id, _ string) { ids = append(ids, id) })
	return ids
}

// TerminateUser closes every local connection signed in as userID.
func (h *Hub) TerminateUser(app, userID string) {
	h.TerminateChannel(app, ServerToUserPrefix+userID)
}

func stats(ch *Channel) ChannelStats {
	n := ch.Count()
	return ChannelStats{Name: ch.name, Occupied: n > 0, SubscriptionCount: n, UserCount: ch.MemberCount()}
}

package hub

import (
	"sort"
	"strings"

	"github.com/roostproject/roost/internal/pusher"
)

// ServerToUserPrefix starts the name of the channel through which a signed-in
// user's connections receive events sent to that user (Pusher "User
// authentication"; the SDK's sendToUser publishes there).
const ServerToUserPrefix = "#server-to-user-"

// Channel reports the state of one channel, cluster-wide.
func (h *Hub) Channel(app, name string) ChannelStats {
	n := h.counts.Count(app, name)
	st := ChannelStats{Name: name, Occupied: n > 0, SubscriptionCount: n}
	if n > 0 && pusher.KindOf(name).IsPresence() {
		st.UserCount = len(h.Members(app, name))
	}
	return st
}

// Channels reports every occupied channel of app whose name starts with
// prefix, sorted by name. Hub-internal ('#') channels are not listed.
func (h *Hub) Channels(app, prefix string) []ChannelStats {
	counts := h.counts.Channels(app, prefix)
	out := make([]ChannelStats, 0, len(counts))
	for name, n := range counts {
		if n <= 0 || strings.HasPrefix(name, "#") {
			continue
		}
		st := ChannelStats{Name: name, Occupied: true, SubscriptionCount: n}
		if pusher.KindOf(name).IsPresence() {
			st.UserCount = len(h.Members(app, name))
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Users returns the ids of the members of a presence channel.
func (h *Hub) Users(app, channel string) []string {
	var ids []string
	for _, m := range h.Members(app, channel) {
		ids = append(ids, m.ID)
	}
	return ids
}

// TerminateUser closes every connection signed in as userID, on every node.
func (h *Hub) TerminateUser(app, userID string) {
	h.broker.Publish(&Message{App: app, Channel: ServerToUserPrefix + userID, Terminate: true})
}

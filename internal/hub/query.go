package hub

import (
	"context"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/pusher"
)

// ServerToUserPrefix starts the name of the channel through which a signed-in
// user's connections receive events sent to that user (Pusher "User
// authentication"; the SDK's sendToUser publishes there).
const ServerToUserPrefix = "#server-to-user-"

// The queries below answer the HTTP API from the shared state, cluster-wide.
// They run on the caller's goroutine and wait for the store at most
// StoreWait (or until ctx ends); a store that does not answer makes them
// fail with ErrUnavailable.

// Channel reports the state of one channel.
func (h *Hub) Channel(ctx context.Context, app, name string) (ChannelStats, error) {
	ctx, cancel := h.bounded(ctx)
	defer cancel()
	n, err := h.counts.Count(ctx, app, name)
	if err != nil {
		return ChannelStats{}, unavailable(err)
	}
	st := ChannelStats{Name: name, Occupied: n > 0, SubscriptionCount: n}
	if n > 0 && pusher.KindOf(name).IsPresence() {
		members, err := h.presence.Members(ctx, app, name)
		if err != nil {
			return ChannelStats{}, unavailable(err)
		}
		st.UserCount = len(members)
	}
	return st, nil
}

// Channels reports every occupied channel of app whose name starts with
// prefix, sorted by name. Hub-internal ('#') channels are not listed.
func (h *Hub) Channels(ctx context.Context, app, prefix string) ([]ChannelStats, error) {
	ctx, cancel := h.bounded(ctx)
	defer cancel()
	counts, err := h.counts.Channels(ctx, app, prefix)
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]ChannelStats, 0, len(counts))
	for name, n := range counts {
		if n <= 0 || strings.HasPrefix(name, "#") {
			continue
		}
		st := ChannelStats{Name: name, Occupied: true, SubscriptionCount: n}
		if pusher.KindOf(name).IsPresence() {
			if st.UserCount, err = h.userCount(ctx, app, name); err != nil {
				return nil, unavailable(err)
			}
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(x, y ChannelStats) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// memberCounter is implemented by a Presence that can count a channel's
// members without listing them (MemoryPresence): a listing of many
// presence channels then copies and sorts no member list.
type memberCounter interface {
	MemberCount(ctx context.Context, app, channel string) (int, error)
}

// userCount returns how many distinct members a presence channel has.
func (h *Hub) userCount(ctx context.Context, app, channel string) (int, error) {
	if mc, ok := h.presence.(memberCounter); ok {
		return mc.MemberCount(ctx, app, channel)
	}
	members, err := h.presence.Members(ctx, app, channel)
	return len(members), err
}

// Users returns the ids of the members of a presence channel.
func (h *Hub) Users(ctx context.Context, app, channel string) ([]string, error) {
	members, err := h.Members(ctx, app, channel)
	var ids []string
	for _, m := range members {
		ids = append(ids, m.ID)
	}
	return ids, err
}

// TerminateUser closes every connection signed in as userID, on every node.
func (h *Hub) TerminateUser(app, userID string) {
	h.broker.Publish(&Message{App: app, Channel: ServerToUserPrefix + userID, Terminate: true})
}

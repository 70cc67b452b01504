package hub

// Observer is told of the facts an app's webhooks report (Pusher docs,
// "Webhooks"). The hub calls it, sometimes with its own locks held and from
// epoll loops: every method must return at once, without blocking.
//
// ChannelOccupied and ChannelVacated are the channel's 0 -> 1 and 1 -> 0
// transitions; the hub reports them for its own in-memory counts, and a
// Counts store given to SetState reports the cluster-wide ones itself
// instead (once per cluster). MemberAdded and MemberRemoved follow the
// Presence store's first and last connection of a user, which are
// cluster-wide too.
type Observer interface {
	ChannelOccupied(app, channel string)
	ChannelVacated(app, channel string)
	MemberAdded(app, channel, user string)
	MemberRemoved(app, channel, user string)
	// ClientEvent is a client- event relayed on a channel; user is the
	// sender's user_id on a presence channel, else "".
	ClientEvent(app, channel, event, data, socketID, user string)
	// SubscriptionCount is a subscription_count sent to a channel.
	SubscriptionCount(app, channel string, count int)
}

// SetObserver makes the hub tell o of channel, member, client and count
// events; call it before serving connections.
func (h *Hub) SetObserver(o Observer) { h.observer = o }

// NopObserver is told everything and does nothing: the default, for a
// server without webhooks.
type NopObserver struct{}

func (NopObserver) ChannelOccupied(app, channel string)                          {}
func (NopObserver) ChannelVacated(app, channel string)                           {}
func (NopObserver) MemberAdded(app, channel, user string)                        {}
func (NopObserver) MemberRemoved(app, channel, user string)                      {}
func (NopObserver) ClientEvent(app, channel, event, data, socketID, user string) {}
func (NopObserver) SubscriptionCount(app, channel string, count int)             {}

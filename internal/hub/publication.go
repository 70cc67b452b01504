package hub

// Publication is one event to deliver on one or more channels of an app, as the
// HTTP API (POST /apps/{id}/events) or a client event hands it to the hub.
type Publication struct {
	// Channels are the target channel names (1..100, validated by the caller).
	Channels []string
	// Event is the event name (<= 200 characters).
	Event string
	// Data is the event payload exactly as received; it is sent to clients as a
	// JSON string (Pusher's double encoding).
	Data string
	// SocketID, when not empty, is the connection that must not receive the event.
	SocketID string
	// UserID, when not empty, is added as "user_id" to the delivered message
	// (client events on presence channels).
	UserID string
}

// ChannelStats describes one channel for the HTTP API's channel queries.
type ChannelStats struct {
	Name              string
	Occupied          bool
	SubscriptionCount int // connections subscribed, cluster-wide
	UserCount         int // distinct presence members; 0 on other channel types
}

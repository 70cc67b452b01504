package pusher

// Event names of protocol 7 (Pusher docs, "Pusher Channels Protocol",
// "Events"; pusher-js src/core). pusher: events are part of the protocol,
// pusher_internal: events are handled by the client library itself, client-
// events are relayed between clients.
const (
	EventConnectionEstablished = "pusher:connection_established"
	EventError                 = "pusher:error"
	EventPing                  = "pusher:ping"
	EventPong                  = "pusher:pong"
	EventSubscribe             = "pusher:subscribe"
	EventUnsubscribe           = "pusher:unsubscribe"
	EventSignin                = "pusher:signin"
	EventSigninSuccess         = "pusher:signin_success"
	EventSubscriptionError     = "pusher:subscription_error"
	EventCacheMiss             = "pusher:cache_miss"
	EventSubscriptionSucceeded = "pusher_internal:subscription_succeeded"
	EventSubscriptionCount     = "pusher_internal:subscription_count"
	EventMemberAdded           = "pusher_internal:member_added"
	EventMemberRemoved         = "pusher_internal:member_removed"
	EventWatchlistEvents       = "pusher_internal:watchlist_events"

	// ClientEventPrefix starts the name of every event a client may send to
	// other clients.
	ClientEventPrefix = "client-"
)

// Limits of the protocol (Pusher docs, "Channels", "Presence channels",
// "Events", "Watchlist events"; docs/protocol.md, "Limits").
const (
	MaxChannelLength   = 200  // characters in a channel name (the Node SDK's limit)
	MaxEventNameLength = 200  // characters in an event name
	MaxUserIDLength    = 128  // characters in a presence user_id or a signed-in user id
	MaxUserInfoBytes   = 1024 // bytes of a presence member's user_info
	MaxWatchlist       = 100  // user ids a watchlist may hold
)

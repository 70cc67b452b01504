package hub

import "context"

// Counts keeps the number of subscriptions to each channel, for the HTTP
// API's channel queries and subscription_count events.
type Counts interface {
	// Subscribed records a change in this node's subscriptions to a
	// channel. The hub calls it with Hub.mu held: it must not block.
	Subscribed(app, channel string, delta int)
	// Count returns a channel's subscriptions.
	Count(ctx context.Context, app, channel string) (int, error)
	// Channels returns the channels of app whose name starts with prefix,
	// with their numbers of subscriptions: every occupied one, and maybe
	// some with none (Hub.Channels, the one reader, leaves those out).
	Channels(ctx context.Context, app, prefix string) (map[string]int, error)
}

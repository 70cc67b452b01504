package webhook

import (
	"strings"

	"github.com/roostproject/roost/internal/config"
)

// The hub.Observer methods and CacheMiss turn facts into intake entries.
// Channels whose names start with '#' are roost's own (server-to-user,
// watchlist) and are never reported.

// ChannelOccupied implements hub.Observer: channel_occupied, unless it
// cancels a channel_vacated still held back.
func (w *Webhooks) ChannelOccupied(app, channel string) {
	w.pair(app, channel, opComeback, Event{Name: config.WebhookChannelOccupied, Channel: channel}, "")
}

// ChannelVacated implements hub.Observer: channel_vacated after the delay.
func (w *Webhooks) ChannelVacated(app, channel string) {
	w.pair(app, channel, opDelay, Event{Name: config.WebhookChannelVacated, Channel: channel}, "")
}

// MemberAdded implements hub.Observer: member_added, unless it cancels a
// member_removed still held back.
func (w *Webhooks) MemberAdded(app, channel, user string) {
	w.pair(app, channel, opComeback, Event{Name: config.WebhookMemberAdded, Channel: channel, UserID: user}, user)
}

// MemberRemoved implements hub.Observer: member_removed after the delay.
func (w *Webhooks) MemberRemoved(app, channel, user string) {
	w.pair(app, channel, opDelay, Event{Name: config.WebhookMemberRemoved, Channel: channel, UserID: user}, user)
}

// ClientEvent implements hub.Observer: client_event, at once.
func (w *Webhooks) ClientEvent(app, channel, event, data, socketID, user string) {
	w.now(app, Event{Name: config.WebhookClientEvent, Channel: channel, Event: event, Data: data, SocketID: socketID, UserID: user})
}

// SubscriptionCount implements hub.Observer: subscription_count, at once.
// It comes as often as the subscribers are told (at most every 5 s on a
// busy channel).
func (w *Webhooks) SubscriptionCount(app, channel string, count int) {
	w.now(app, Event{Name: config.WebhookSubscriptionCount, Channel: channel, Count: count})
}

// CacheMiss is session.Env's OnCacheMiss: cache_miss, at once.
func (w *Webhooks) CacheMiss(app, channel string) {
	w.now(app, Event{Name: config.WebhookCacheMiss, Channel: channel})
}

// now queues an event that is not delayed.
func (w *Webhooks) now(app string, ev Event) {
	if a := w.current(app); a != nil && a.wants&bit(ev.Name) != 0 && !internal(ev.Channel) {
		w.in.push(fact{app: a, op: opSend, ev: ev}, a.stats)
	}
}

// pair queues one half of a pair of events that cancel each other within
// the delay: occupied/vacated of a channel, added/removed of a member.
func (w *Webhooks) pair(app, channel string, op uint8, ev Event, user string) {
	a := w.current(app)
	if a == nil || internal(channel) {
		return
	}
	kind, pair := "vacated:", bit(config.WebhookChannelOccupied)|bit(config.WebhookChannelVacated)
	if user != "" {
		pair = bit(config.WebhookMemberAdded) | bit(config.WebhookMemberRemoved)
	}
	if a.wants&pair == 0 {
		return
	}
	key := kind + app + ":" + channel
	if user != "" {
		key = RemovedKey(app, channel, user)
	}
	w.in.push(fact{app: a, op: op, ev: ev, key: key}, a.stats)
}

// RemovedKey is the Pending key of a member_removed held back: a hold
// under it (OpHold) has the member's next member_added cancel it instead
// of being sent.
func RemovedKey(app, channel, user string) string {
	return "removed:" + app + ":" + channel + ":" + user
}

// internal reports a channel of roost's own.
func internal(channel string) bool { return strings.HasPrefix(channel, "#") }

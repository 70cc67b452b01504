package session

import (
	"encoding/json"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

// clientEvent relays a client- event to the channel's other subscribers
// (Pusher "Client events").
func (s Call) clientEvent(msg pusher.Message) {
	kind := pusher.KindOf(msg.Channel)
	switch {
	case !s.app.ClientEvents:
		s.sendError(0, "client events are not enabled for this app")
		return
	case !kind.IsPrivate() && !kind.IsPresence() || kind.IsEncrypted():
		s.sendError(0, "client events are only allowed on private and presence channels that are not encrypted")
		return
	}
	i := s.find(msg.Channel)
	if i < 0 || s.subs()[i].index == pending {
		s.sendError(0, "not subscribed to channel "+quote(msg.Channel))
		return
	}
	if !s.withinRate() {
		return
	}
	p := hub.Publication{Channels: []string{msg.Channel}, Event: msg.Event, Data: eventData(msg.Data), SocketID: s.SocketID(), UserID: s.memberIn(s.subs()[i].ch)}
	if err := s.env.Hub.Publish(s.app.ID, p); err != nil {
		s.sendError(0, "client event not delivered: "+err.Error())
	}
}

// eventData turns a client event's data into the string the server sends:
// a JSON string stays that string, anything else is sent as its JSON text.
func eventData(raw json.RawMessage) string {
	var str string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &str) == nil {
		return str
	}
	return string(raw)
}

// withinRate counts a client event against the connection's limit and then
// the app's on this node; over either, the event is dropped with 4301 and
// the connection stays (Pusher docs, "Client events").
func (s Call) withinRate() bool {
	now := s.env.Now()
	var ok bool
	if s.rate, ok = s.rate.take(now, s.env.limits().ClientEventsPerSecond); !ok {
		s.sendError(pusher.ClientRateLimit, "client event rate limit reached: event dropped")
		return false
	}
	if !s.env.clientEvents.allow(s.app, now) {
		s.sendError(pusher.ClientRateLimit, "the app's client event rate limit reached: event dropped")
		return false
	}
	return true
}

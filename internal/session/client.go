package session

import (
	"encoding/json"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

// rateWindow counts client events in the current one-second window.
type rateWindow struct {
	second uint32
	count  uint32
}

// allow counts one event at second now and reports whether it is within limit.
func (r *rateWindow) allow(now int64, limit int) bool {
	if uint32(now) != r.second {
		r.second, r.count = uint32(now), 0
	}
	r.count++
	return int(r.count) <= limit
}

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
	if i < 0 || s.subs[i].index == pending {
		s.sendError(0, "not subscribed to channel "+quote(msg.Channel))
		return
	}
	if !s.rate.allow(s.env.Now(), s.env.Config.Limits.ClientEventsPerSecond) {
		s.sendError(pusher.ClientRateLimit, "client event rate limit reached: event dropped")
		return
	}
	p := hub.Publication{Channels: []string{msg.Channel}, Event: msg.Event, Data: eventData(msg.Data), SocketID: s.SocketID(), UserID: s.subs[i].member}
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

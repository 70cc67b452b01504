package session

import (
	"bytes"
	"strings"

	"github.com/roostproject/roost/internal/pusher"
)

// HandleText processes one complete text message from the client. A message
// that cannot be understood gets a pusher:error and the connection stays up.
// A message that must wait for the store's answer to an earlier one is kept
// and handled after it (see mustWait).
func (s Call) HandleText(payload []byte) {
	if s.closed {
		return
	}
	if bytes.Equal(payload, clientPing) {
		s.sendFrame(pongFrame) // what pusher-js sends every activity_timeout
		return
	}
	if s.waiting() {
		if channel := clientEventChannel(payload); s.mustWait(channel) {
			s.hold(payload, channel)
			return
		}
	}
	s.handle(payload)
}

// handle parses a message and acts on it.
func (s Call) handle(payload []byte) {
	msg, err := pusher.ParseMessage(payload)
	if err != nil {
		s.sendError(0, err.Error())
		return
	}
	switch msg.Event {
	case "pusher:ping":
		s.sendFrame(pongFrame)
	case "pusher:pong":
	case "pusher:subscribe":
		s.subscribe(msg)
	case "pusher:unsubscribe":
		s.unsubscribe(msg)
	case "pusher:signin":
		s.signin(msg)
	default:
		s.other(msg)
	}
}

// clientEventChannel returns the channel of a client event, or "".
func clientEventChannel(payload []byte) string {
	msg, err := pusher.ParseMessage(payload)
	if err != nil || !strings.HasPrefix(msg.Event, pusher.ClientEventPrefix) {
		return ""
	}
	return msg.Channel
}

func (s Call) other(msg pusher.Message) {
	if strings.HasPrefix(msg.Event, "client-") {
		s.clientEvent(msg)
		return
	}
	s.sendError(0, "unsupported event "+quote(msg.Event))
}

// clientPing is pusher-js's keep-alive, byte for byte; it is answered
// without parsing, so an idle connection's upkeep allocates nothing.
var clientPing = []byte(`{"event":"pusher:ping","data":{}}`)

// quote bounds and quotes client-supplied text for an error message.
func quote(v string) string {
	if len(v) > 64 {
		v = v[:64] + "..."
	}
	return `"` + v + `"`
}

package pusher

import (
	"encoding/json"
	"errors"
)

// Errors ParseMessage returns; their text is fit for a pusher:error.
var (
	errNotJSON        = errors.New("The message is not valid JSON.")
	errNotObject      = errors.New("The message must be a JSON object.")
	errNoEvent        = errors.New("The message has no event name.")
	errEventNotString = errors.New("The event name must be a string.")
	errChannelType    = errors.New("The channel must be a string.")
	errUserIDType     = errors.New("The user_id must be a string.")
)

// Message is a decoded client message (Pusher docs, "Pusher Channels
// Protocol", "WebSocket data messages"): {"event", "channel"?, "data"?}.
//
// Data is the raw JSON value of "data": an object for pusher: events, any
// JSON value for client events (pusher-js sends what the app passed to
// trigger), nil when absent. It aliases the buffer given to ParseMessage:
// copy it to keep it after that buffer is reused. Event, Channel and UserID
// are copies.
type Message struct {
	Event   string
	Channel string
	Data    json.RawMessage
	UserID  string
}

// ParseMessage decodes one client message. Unknown fields are ignored; a
// field given twice keeps its last value, as JSON.parse does; keys match
// exactly. The error is a sentence to send back in a pusher:error with
// NoCode.
func ParseMessage(b []byte) (Message, error) {
	if !json.Valid(b) {
		return Message{}, errNotJSON
	}
	c, ok := open(b, '{')
	if !ok {
		return Message{}, errNotObject
	}
	var m Message
	for key, val, ok := c.member(); ok; key, val, ok = c.member() {
		if err := m.set(key, val); err != nil {
			return Message{}, err
		}
	}
	if m.Event == "" {
		return Message{}, errNoEvent
	}
	return m, nil
}

// set stores one member of the message object.
func (m *Message) set(key, val []byte) (err error) {
	switch {
	case keyIs(key, "event"):
		m.Event, err = optionalString(val, errEventNotString)
	case keyIs(key, "channel"):
		m.Channel, err = optionalString(val, errChannelType)
	case keyIs(key, "data"):
		m.Data = json.RawMessage(val)
	case keyIs(key, "user_id"):
		m.UserID, err = optionalString(val, errUserIDType)
	}
	return err
}

// optionalString decodes a raw JSON string; null counts as "", and any
// other type is notString.
func optionalString(raw []byte, notString error) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	s, ok := unquote(raw)
	if !ok {
		return "", notString
	}
	return s, nil
}

package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/roostproject/roost/internal/config"
)

// Event is one webhook event (Pusher docs, "Webhooks"). Which fields it
// carries depends on Name.
type Event struct {
	Name    string // one of config.WebhookEventTypes
	Channel string
	// UserID: member_added, member_removed, and client_event on presence
	// channels.
	UserID string
	// Event, Data and SocketID: client_event.
	Event, Data, SocketID string
	// Count: subscription_count.
	Count int
}

// AppendJSON appends e as the JSON object Pusher sends for it.
func (e *Event) AppendJSON(b []byte) []byte {
	b = appendField(append(b, '{'), "name", e.Name)
	b = appendField(append(b, ','), "channel", e.Channel)
	switch e.Name {
	case config.WebhookClientEvent:
		b = appendField(append(b, ','), "event", e.Event)
		b = appendField(append(b, ','), "data", e.Data)
		b = appendField(append(b, ','), "socket_id", e.SocketID)
		if e.UserID != "" {
			b = appendField(append(b, ','), "user_id", e.UserID)
		}
	case config.WebhookMemberAdded, config.WebhookMemberRemoved:
		b = appendField(append(b, ','), "user_id", e.UserID)
	case config.WebhookSubscriptionCount:
		b = append(b, `,"subscription_count":`...)
		b = strconv.AppendInt(b, int64(e.Count), 10)
	}
	return append(b, '}')
}

// appendField appends "key":"value", value escaped as JSON.
func appendField(b []byte, key, value string) []byte {
	b = append(append(append(b, '"'), key...), `":`...)
	q, _ := json.Marshal(value) // a string always marshals
	return append(b, q...)
}

// Body returns the request body for events, each already JSON:
// {"time_ms":...,"events":[...]}.
func Body(timeMS int64, events [][]byte) []byte {
	n := 32
	for _, e := range events {
		n += len(e) + 1
	}
	b := append(make([]byte, 0, n), `{"time_ms":`...)
	b = append(strconv.AppendInt(b, timeMS, 10), `,"events":[`...)
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, "]}"...)
}

// Sign returns X-Pusher-Signature for body: the hex HMAC-SHA256 of the exact
// bytes with the app secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

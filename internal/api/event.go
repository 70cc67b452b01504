package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/roostproject/roost/internal/pusher"
)

// Limits from the Pusher HTTP API reference, "POST event" and "POST batch
// events".
const (
	maxChannels = 100 // channels per event
	maxBatch    = 10  // events per batch
)

// eventBody is one event as "POST event" defines it. Channels holds the
// targets after check, whichever of channel or channels the client sent.
type eventBody struct {
	Name     string    `json:"name"`
	Data     eventData `json:"data"`
	Channel  string    `json:"channel"`
	Channels []string  `json:"channels"`
	SocketID string    `json:"socket_id"`
	Info     string    `json:"info"`

	attrs attrs // parsed Info
}

// errDataNotString reports event data that is not a JSON string: the HTTP API
// carries data as a string, which clients receive as is.
var errDataNotString = errors.New("data: must be a JSON string")

// eventData is the data field: a JSON string, and whether it was present.
type eventData struct {
	s   string
	set bool
}

// UnmarshalJSON accepts a JSON string and refuses every other type; null
// leaves the field unset.
func (d *eventData) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' {
		return errDataNotString
	}
	d.set = true
	if raw := b[1 : len(b)-1]; bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		d.s = string(raw) // no escapes: the bytes are the string
		return nil
	}
	return json.Unmarshal(b, &d.s)
}

// decodeError explains why a request body did not decode.
func decodeError(err error) error {
	if errors.Is(err, errDataNotString) {
		return errorf(http.StatusBadRequest, "%v", err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return errorf(http.StatusBadRequest, "%s: must not be a JSON %s", te.Field, te.Value)
	}
	if te != nil {
		return errorf(http.StatusBadRequest, "request body must be a JSON object")
	}
	return errorf(http.StatusBadRequest, "malformed JSON body: %v", err)
}

// check validates ev by the rules of "POST event" and sets ev.Channels and
// ev.attrs. It leaves the size of the data to checkSize, whose 413 comes
// after every 400.
func (h *handler) check(ev *eventBody) error {
	if ev.Name == "" {
		return errorf(http.StatusBadRequest, "name: missing")
	}
	if err := pusher.ValidateEventName(ev.Name); err != nil {
		return errorf(http.StatusBadRequest, "name: %v", err)
	}
	if !ev.Data.set {
		return errorf(http.StatusBadRequest, "data: missing")
	}
	if err := ev.targets(); err != nil {
		return err
	}
	if ev.SocketID != "" && !validSocketID(ev.SocketID) {
		return errorf(http.StatusBadRequest, "socket_id: must match ^\\d+\\.\\d+$")
	}
	a, err := parseInfo(ev.Info, attrUserCount|attrSubscriptionCount)
	if err != nil {
		return err
	}
	ev.attrs = a
	return nil
}

// checkSize refuses event data over MaxEventData with 413, as the Pusher
// HTTP API reference does for data over 10 KB.
func (h *handler) checkSize(ev *eventBody) error {
	if max := h.limits().eventData; len(ev.Data.s) > max {
		return errorf(http.StatusRequestEntityTooLarge, "data: larger than %d bytes", max)
	}
	return nil
}

// targets settles ev.Channels from channel or channels and validates each
// name. Repeated names are published once.
func (ev *eventBody) targets() error {
	switch {
	case ev.Channel != "" && len(ev.Channels) > 0:
		return errorf(http.StatusBadRequest, "channel, channels: give one, not both")
	case ev.Channel != "":
		ev.Channels = []string{ev.Channel}
	case len(ev.Channels) == 0:
		return errorf(http.StatusBadRequest, "channels: missing")
	case len(ev.Channels) > maxChannels:
		return errorf(http.StatusBadRequest, "channels: more than %d", maxChannels)
	}
	ev.Channels = dedupe(ev.Channels)
	for i, name := range ev.Channels {
		if err := validateTarget(name); err != nil {
			return errorf(http.StatusBadRequest, "channels[%d]: %v", i, err)
		}
	}
	return nil
}

// validateTarget accepts the channel names a publish may target: every valid
// client channel, and #server-to-user-{id}, the only # name open to the API
// (Pusher docs, "Sending events to authenticated users").
func validateTarget(name string) error {
	if pusher.KindOf(name).IsServerToUser() {
		_, err := pusher.ParseUserChannel(name)
		return err
	}
	return pusher.ValidateChannel(name)
}

// dedupe removes repeated names in place, keeping the first of each; at most
// maxChannels names make the quadratic scan cheaper than a map.
func dedupe(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// contains reports whether names holds n.
func contains(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// validSocketID reports whether s matches ^\d+\.\d+$, the socket_id format
// the server SDKs enforce (Pusher docs, "Excluding event recipients").
func validSocketID(s string) bool {
	left, right, ok := strings.Cut(s, ".")
	return ok && allDigits(left) && allDigits(right)
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

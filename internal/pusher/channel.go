package pusher

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ServerToUserPrefix starts the channel pusher-js subscribes to after a
// successful sign-in, "#server-to-user-{user id}" (pusher-js user.ts); the
// HTTP API's sendToUser publishes to it.
const ServerToUserPrefix = "#server-to-user-"

var (
	errChannelEmpty    = errors.New("The channel name is empty.")
	errChannelLong     = errors.New("The channel name is longer than 200 characters.")
	errEventEmpty      = errors.New("The event name is empty.")
	errEventLong       = errors.New("The event name is longer than 200 characters.")
	errNotUserChannel  = errors.New("The channel is not a #server-to-user- channel.")
	errUserChannelUser = errors.New("The #server-to-user- channel names no valid user id.")
)

// ValidateChannel checks a channel name a client or the HTTP API gives: 1 to
// MaxChannelLength characters from A-Z a-z 0-9 _ - = @ , . ; (Pusher docs,
// "Channels", "Channel naming conventions"). Names starting with '#' are
// reserved for the server and refused here; see ParseUserChannel.
func ValidateChannel(name string) error {
	switch {
	case name == "":
		return errChannelEmpty
	case len(name) > MaxChannelLength:
		return errChannelLong
	}
	for i := 0; i < len(name); i++ {
		if !channelChar(name[i]) {
			r, _ := utf8.DecodeRuneInString(name[i:])
			return fmt.Errorf("The channel name contains %q; use only A-Z, a-z, 0-9 and _-=@,.;", r)
		}
	}
	return nil
}

// channelChar reports whether c may appear in a channel name.
func channelChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_-=@,.;", c) >= 0
}

// UserChannel returns the server-to-user channel of userID.
func UserChannel(userID string) string { return ServerToUserPrefix + userID }

// ParseUserChannel returns the user id named by a "#server-to-user-{id}"
// channel, checking the id as a signed-in user id: non-empty, at most
// MaxUserIDLength characters, valid UTF-8. The caller checks that it is the
// id the connection signed in as.
func ParseUserChannel(name string) (userID string, err error) {
	id, ok := strings.CutPrefix(name, ServerToUserPrefix)
	switch {
	case !ok:
		return "", errNotUserChannel
	case !utf8.ValidString(id):
		return "", errUserChannelUser
	}
	if err := checkUserID(id, errUserChannelUser, errUserChannelUser); err != nil {
		return "", err
	}
	return id, nil
}

// ValidateEventName checks an event name: 1 to MaxEventNameLength
// characters (Pusher docs, "HTTP API reference", "Publish events").
func ValidateEventName(name string) error {
	switch {
	case name == "":
		return errEventEmpty
	case len(name) > MaxEventNameLength && utf8.RuneCountInString(name) > MaxEventNameLength:
		return errEventLong
	}
	return nil
}

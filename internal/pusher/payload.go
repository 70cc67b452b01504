package pusher

import (
	"encoding/json"
	"errors"
)

// Errors of the payload decoders; their text is fit for a pusher:error.
var (
	errAuthType             = errors.New("The auth must be a string.")
	errChannelDataType      = errors.New("The channel_data must be a string.")
	errUserDataType         = errors.New("The user_data must be a string.")
	errSubscribeNoChannel   = errors.New("The pusher:subscribe data has no channel.")
	errUnsubscribeNoChannel = errors.New("The pusher:unsubscribe data has no channel.")
	errSigninNoAuth         = errors.New("The pusher:signin data has no auth.")
	errSigninNoUserData     = errors.New("The pusher:signin data has no user_data.")
)

// Subscribe is the data of a pusher:subscribe (Pusher docs, "Pusher
// Channels Protocol", "pusher:subscribe"; pusher-js channel.ts subscribe):
// the channel, the "key:signature" token for private and presence channels
// ("" for public ones) and, for presence channels, the channel_data string
// exactly as signed.
type Subscribe struct {
	Channel     string
	Auth        string
	ChannelData string
}

// Signin is the data of a pusher:signin (Pusher docs, "User
// authentication"; pusher-js user.ts): the "key:signature" token and the
// user_data string exactly as signed.
type Signin struct {
	Auth     string
	UserData string
}

// ParseSubscribe decodes the data of a pusher:subscribe. It checks only the
// shape: the caller validates the channel name (ValidateChannel, or
// ParseUserChannel for "#server-to-user-") and the token.
func ParseSubscribe(data json.RawMessage) (Subscribe, error) {
	c, err := openData(data, EventSubscribe)
	if err != nil {
		return Subscribe{}, err
	}
	var s Subscribe
	for key, val, ok := c.member(); ok && err == nil; key, val, ok = c.member() {
		switch {
		case keyIs(key, "channel"):
			s.Channel, err = optionalString(val, errChannelType)
		case keyIs(key, "auth"):
			s.Auth, err = optionalString(val, errAuthType)
		case keyIs(key, "channel_data"):
			s.ChannelData, err = optionalString(val, errChannelDataType)
		}
	}
	if err == nil && s.Channel == "" {
		err = errSubscribeNoChannel
	}
	return s, err
}

// ParseUnsubscribe decodes the data of a pusher:unsubscribe, {"channel"}.
func ParseUnsubscribe(data json.RawMessage) (channel string, err error) {
	c, err := openData(data, EventUnsubscribe)
	if err != nil {
		return "", err
	}
	for key, val, ok := c.member(); ok && err == nil; key, val, ok = c.member() {
		if keyIs(key, "channel") {
			channel, err = optionalString(val, errChannelType)
		}
	}
	if err == nil && channel == "" {
		err = errUnsubscribeNoChannel
	}
	return channel, err
}

// ParseSignin decodes the data of a pusher:signin; both fields are required.
func ParseSignin(data json.RawMessage) (Signin, error) {
	c, err := openData(data, EventSignin)
	if err != nil {
		return Signin{}, err
	}
	var s Signin
	for key, val, ok := c.member(); ok && err == nil; key, val, ok = c.member() {
		switch {
		case keyIs(key, "auth"):
			s.Auth, err = optionalString(val, errAuthType)
		case keyIs(key, "user_data"):
			s.UserData, err = optionalString(val, errUserDataType)
		}
	}
	switch {
	case err != nil:
	case s.Auth == "":
		err = errSigninNoAuth
	case s.UserData == "":
		err = errSigninNoUserData
	}
	return s, err
}

// openData returns a cursor over the object data of event. pusher-js sends
// an object; a JSON string holding an object, as some older clients send,
// is accepted too.
func openData(data json.RawMessage, event string) (cursor, error) {
	if json.Valid(data) && len(data) > 0 && data[0] == '"' {
		s, _ := unquote(data)
		data = json.RawMessage(s)
	}
	c, ok := open(data, '{')
	if !ok {
		return cursor{}, errors.New("The " + event + " data must be a JSON object.")
	}
	return c, nil
}

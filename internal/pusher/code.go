package pusher

import "strconv"

// Code is a Pusher error or close code (Pusher docs, "Pusher Channels
// Protocol", "Error codes"). pusher-js acts on the range: 4000-4099 gives up,
// 4100-4199 backs off and retries, 4200-4299 retries at once, 4300 and above
// gives up. NoCode is a plain error, sent as "code":null.
type Code uint16

// The codes roost sends.
const (
	NoCode              Code = 0    // a generic error, e.g. a malformed message
	TLSOnly             Code = 4000 // the app accepts only TLS connections
	AppNotFound         Code = 4001 // no app has this key
	AppDisabled         Code = 4003 // the app is disabled
	OverQuota           Code = 4004 // the app is over its connection quota
	PathNotFound        Code = 4005 // the WebSocket path is not /app/{key}
	InvalidVersion      Code = 4006 // the version query parameter is malformed
	UnsupportedProtocol Code = 4007 // the protocol version is not supported
	NoProtocol          Code = 4008 // no protocol version was given
	Unauthorized        Code = 4009 // the connection failed authentication
	OverCapacity        Code = 4100 // the server is overloaded: back off
	ReconnectNow        Code = 4200 // the server is draining: reconnect at once
	PongTimeout         Code = 4201 // no pong arrived in time
	InactivityClose     Code = 4202 // closed after a period of inactivity
	ClientRateLimit     Code = 4301 // client events over the rate limit
	WatchlistLimit      Code = 4302 // the watchlist holds more than 100 ids
)

// Closes reports whether the code ends the connection. 4301 is sent only as
// a pusher:error and the connection stays up; NoCode closes nothing.
func (c Code) Closes() bool {
	return c >= 4000 && c != ClientRateLimit
}

// Text returns the default message for the code, short enough (under 123
// bytes) to be the reason of a WebSocket close frame (RFC 6455 section 5.5).
func (c Code) Text() string {
	switch c {
	case TLSOnly:
		return "This app only accepts TLS connections (wss)."
	case AppNotFound:
		return "No app with this key exists."
	case AppDisabled:
		return "This app is disabled."
	case OverQuota:
		return "This app is over its connection quota."
	case PathNotFound:
		return "Path not found: connect to /app/{key}."
	case InvalidVersion:
		return "The client version is not valid."
	case UnsupportedProtocol:
		return "Unsupported protocol version: use protocol 7."
	case NoProtocol:
		return "No protocol version was given."
	}
	return c.textMore()
}

// textMore is the second half of Text, split to keep functions short.
func (c Code) textMore() string {
	switch c {
	case Unauthorized:
		return "The connection is not authorized."
	case OverCapacity:
		return "The server is over capacity: retry later."
	case ReconnectNow:
		return "The server is restarting: reconnect now."
	case PongTimeout:
		return "No pong was received in time."
	case InactivityClose:
		return "Closed after a period of inactivity."
	case ClientRateLimit:
		return "Too many client events: at most 10 per second."
	case WatchlistLimit:
		return "The watchlist has more than 100 users; only the first 100 are watched."
	case NoCode:
		return "Error."
	}
	return "Error " + strconv.Itoa(int(c)) + "."
}

// String returns the number, or "none" for NoCode.
func (c Code) String() string {
	if c == NoCode {
		return "none"
	}
	return strconv.Itoa(int(c))
}

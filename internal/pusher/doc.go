// Package pusher is the Pusher Channels protocol 7 message layer: it decodes
// what clients send (pusher:subscribe, pusher:signin, client events, the
// channel_data and user_data they carry), validates channel and event names,
// and encodes what the server sends, as the Pusher docs "Pusher Channels
// Protocol" page and the pusher-js source (src/core/connection/protocol,
// src/core/channels, src/core/user.ts, src/core/watchlist.ts) define them.
// Where the two disagree, pusher-js wins: it is the client people run.
//
// The encoders append to a caller's buffer and never allocate when it is
// large enough, because a publish is encoded once for all its subscribers on
// the fan-out path. They write JSON strings by hand (RFC 8259 section 7):
// quotes, backslashes and control characters are escaped, invalid UTF-8
// becomes \ufffd, and U+2028 and U+2029 are escaped so that the output is
// also valid JavaScript. The server sends `data` as a JSON-encoded string
// (double encoding), which pusher-js decodes again; pusher:error and
// pusher:subscription_error carry an object, as the Pusher docs show.
//
// The decoders return errors whose text is a sentence fit to send back to
// the client in a pusher:error. The package imports no other internal
// package and holds no state.
package pusher

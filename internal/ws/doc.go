// Package ws is roost's WebSocket layer (RFC 6455): the frame codec, the
// server handshake and a small client for tests and the load tool.
//
// It exists separately from the transports so that the epoll loops and the
// goroutine-per-connection path decode frames with exactly the same rules,
// and so that an idle connection costs nothing here: the decoder keeps its
// per-connection state in a two-byte, pointer-free [State], works on the
// caller's (shared, per-loop) read buffer, unmasks in place and hands
// unfragmented text straight to the [Handler] without copying. Only a
// fragmented text message in progress owns a buffer, borrowed from a pool
// and returned when the message completes or fails.
//
// roost speaks text JSON only (Pusher Channels protocol 7), so binary
// messages fail the connection with 1003 and no subprotocol is ever
// negotiated. The one extension is permessage-deflate (RFC 7692), when the
// server allows it: always without context takeover in either direction,
// so a server frame is compressed once for every connection and a client
// message is inflated with a decompressor borrowed from a pool, and an idle
// connection still owns no buffer (one more bit in [State]).
//
// Concurrency: [Decode] and [Discard] may run on many goroutines at once as
// long as each [State] and fragment buffer is used by one goroutine at a
// time (in roost, the loop that owns the connection). A [Client]'s writes
// are safe for concurrent use; its reads are not.
package ws

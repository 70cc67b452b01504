// Package session speaks the Pusher Channels protocol 7 on one connection:
// connection_established, ping/pong, subscriptions, client events and user
// sign-in. It is transport-agnostic: the epoll loops and the
// goroutine-per-connection transport both feed it complete text messages and
// give it a Conn to write frames to, so both behave identically.
//
// A Session is owned by one goroutine at a time (its epoll loop, or its
// connection's reader goroutine); its methods are not safe for concurrent
// use, except those the hub calls (Deliver, Terminate, Moved), which the
// transports serialise with the session's other calls.
package session

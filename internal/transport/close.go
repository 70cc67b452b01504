package transport

import (
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// The close a connection gets when a server ping goes unanswered for the
// pong wait (Pusher protocol, error code 4201).
const (
	PongTimeoutCode   = ws.CloseCode(pusher.PongTimeout)
	PongTimeoutReason = "pong not received"
)

// SlowClose is the close frame a slow consumer gets, queued after what it
// has not read yet (Pusher protocol, error code 4100 "over capacity": the
// client backs off, then reconnects).
var SlowClose = ws.AppendClose(nil, ws.CloseCode(pusher.OverCapacity), "over capacity")

// EchoCode returns the code the server's close frame carries in answer to
// a client's close (RFC 6455 5.5.1): the client's own code, or 1000 when
// its frame had none, since 1005 must never be sent (RFC 6455 7.4.1).
func EchoCode(client ws.CloseCode) ws.CloseCode {
	if client == ws.CloseNoStatus {
		return ws.CloseNormal
	}
	return client
}

// Cause records why a connection is ending. The first reason recorded is
// the one counted: a close frame a client sends back after the server
// closed still ends a server close, and a pong timeout stays a timeout
// although the server sends the close. The zero value holds no reason; a
// connection that ends without one was closed by its client (EOF or
// reset). It is one byte, so it fits in an idle connection's padding.
type Cause uint8

// Set records r unless a reason is already recorded.
func (c *Cause) Set(r connstats.Reason) {
	if *c == 0 {
		*c = Cause(r) + 1
	}
}

// Reason returns the recorded reason, or connstats.Client if none is.
func (c Cause) Reason() connstats.Reason {
	if c == 0 {
		return connstats.Client
	}
	return connstats.Reason(c - 1)
}

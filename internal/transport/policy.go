package transport

import "time"

// Policy holds the limits and timeouts of every connection. The server
// builds one from its configuration and gives the same one to each
// transport.
type Policy struct {
	// MaxMessage is the largest client message, in bytes; a larger one is
	// closed with 1009 (RFC 6455 7.4.1).
	MaxMessage int
	// WriteBacklog is how many bytes may wait for a slow socket before the
	// connection is closed as a slow consumer.
	WriteBacklog int
	// SendBuffer caps each socket's kernel send buffer (SO_SNDBUF), in
	// bytes; 0 leaves the kernel's default and autotuning.
	SendBuffer int
	// Budget bounds the bytes queued over all connections; nil means
	// unbounded.
	Budget *Budget
	// WriteTimeout closes a connection whose writes make no progress this
	// long, as a slow consumer.
	WriteTimeout time.Duration
	// ActivityTimeout is the silence after which a client pings (it is
	// announced in pusher:connection_established); a little later the server
	// pings a client that did not.
	ActivityTimeout time.Duration
	// PongWait is how much more silence after a server ping closes the
	// connection with 4201.
	PongWait time.Duration
	// CloseTimeout bounds a close handshake the server started: the socket
	// is released this long after the close frame if the client has not
	// answered.
	CloseTimeout time.Duration
}

// Silence returns how long a connection may stay silent before the server
// acts: before a server ping, ActivityTimeout plus a grace, after which the
// server pings; once the ping is out, PongWait, after which it closes the
// connection with 4201.
//
// The grace (a tenth of ActivityTimeout, at least a second) lets a client
// that pings on its own schedule (pusher-js does, after activity_timeout)
// ping first, so it is never pinged as well.
func (p *Policy) Silence(pinged bool) time.Duration {
	if pinged {
		return p.PongWait
	}
	return p.ActivityTimeout + max(p.ActivityTimeout/10, time.Second)
}

// Overflows reports whether n more bytes on top of queued ones exceed the
// write backlog, which makes the connection a slow consumer.
func (p *Policy) Overflows(queued, n int) bool { return queued+n > p.WriteBacklog }

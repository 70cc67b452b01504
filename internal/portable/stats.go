package portable

import "sync/atomic"

// Stats counts what the transport does, for metrics; it mirrors
// netpoll.Stats field for field so that the two transports' figures stand
// side by side. Every field is updated atomically and may be read at any
// time.
type Stats struct {
	Open          atomic.Int64 // connections currently served
	Accepted      atomic.Int64 // connections handed to the transport
	ClosedClient  atomic.Int64 // closed by the client (close frame or EOF)
	ClosedTimeout atomic.Int64 // closed for silence (4201)
	ClosedSlow    atomic.Int64 // closed as slow consumers (backlog cap or write timeout)
	ClosedError   atomic.Int64 // closed by a protocol or socket error
	ClosedServer  atomic.Int64 // closed by the server (shutdown, terminate, auth)
	MessagesIn    atomic.Int64 // complete client messages
	BytesIn       atomic.Int64
	FramesOut     atomic.Int64 // frames written to sockets
	BytesOut      atomic.Int64
}

// closeReason says why a connection ended; the first cause recorded wins.
type closeReason uint8

const (
	reasonUnset closeReason = iota
	byClient
	byTimeout
	bySlow
	byError
	byServer
)

// closed counts one ended connection.
func (s *Stats) closed(r closeReason) {
	s.Open.Add(-1)
	switch r {
	case byTimeout:
		s.ClosedTimeout.Add(1)
	case bySlow:
		s.ClosedSlow.Add(1)
	case byError:
		s.ClosedError.Add(1)
	case byServer:
		s.ClosedServer.Add(1)
	default:
		s.ClosedClient.Add(1)
	}
}

// Stats returns the transport's counters.
func (t *Transport) Stats() *Stats { return &t.stats }

// setReason records why c is ending, unless a cause is already known.
// c.mu must be held.
func (c *conn) setReasonLocked(r closeReason) {
	if c.why == reasonUnset {
		c.why = r
	}
}

// setReason is setReasonLocked for callers that do not hold c.mu.
func (c *conn) setReason(r closeReason) {
	c.mu.Lock()
	c.setReasonLocked(r)
	c.mu.Unlock()
}

// reason returns the recorded cause; a connection that ended without one
// was closed by its client (EOF or reset).
func (c *conn) reason() closeReason {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.why == reasonUnset {
		return byClient
	}
	return c.why
}

// Package connstats is the set of counters every transport keeps, so that
// the epoll and goroutine transports report the same figures, side by side,
// through one metrics path. Every counter is atomic and may be read at any
// time; transports batch hot-path updates where they can.
package connstats

import "sync/atomic"

// Reason says why a connection ended. The first cause a transport records
// is the one counted: a close frame the client sends back after the server
// closed is still a server close.
type Reason uint8

// The reasons, in the order of Stats.Closed.
const (
	Client  Reason = iota // the client closed first (close frame, EOF, reset)
	Timeout               // silent past the pong wait (4201)
	Slow                  // a slow consumer: backlog cap or write timeout
	Error                 // a protocol or socket error
	Server                // the server closed it (shutdown, terminate, auth)
	NumReasons
)

// names are the reasons' label values in roost_connections_closed_total,
// indexed by Reason. They are part of roost's metrics interface.
var names = [NumReasons]string{"client", "timeout", "slow_consumer", "error", "server"}

// String returns r's label value, or "unknown" for a value past NumReasons.
func (r Reason) String() string {
	if r >= NumReasons {
		return "unknown"
	}
	return names[r]
}

// Stats counts what one transport does.
type Stats struct {
	Open       atomic.Int64 // connections served now
	Accepted   atomic.Int64 // connections handed to the transport
	Closed     [NumReasons]atomic.Int64
	MessagesIn atomic.Int64 // complete client messages
	BytesIn    atomic.Int64
	FramesOut  atomic.Int64 // frames written or queued to sockets
	BytesOut   atomic.Int64
}

// Opened counts a connection handed to the transport.
func (s *Stats) Opened() {
	s.Open.Add(1)
	s.Accepted.Add(1)
}

// Ended counts a connection that ended for reason r.
func (s *Stats) Ended(r Reason) {
	s.Open.Add(-1)
	s.Closed[r].Add(1)
}

// Counts is a reading of Stats as plain numbers, for reports.
type Counts struct {
	Open, Accepted int64
	Closed         [NumReasons]int64
	MessagesIn     int64
	BytesIn        int64
	FramesOut      int64
	BytesOut       int64
}

// Read returns the counters' current values. Each is read atomically; the
// set is not a single instant, which a scrape does not need.
func (s *Stats) Read() Counts {
	c := Counts{
		Open: s.Open.Load(), Accepted: s.Accepted.Load(),
		MessagesIn: s.MessagesIn.Load(), BytesIn: s.BytesIn.Load(),
		FramesOut: s.FramesOut.Load(), BytesOut: s.BytesOut.Load(),
	}
	for r := range c.Closed {
		c.Closed[r] = s.Closed[r].Load()
	}
	return c
}

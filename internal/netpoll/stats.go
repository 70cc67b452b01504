package netpoll

import "sync/atomic"

// Stats counts what the loops do, for metrics. Every field is updated
// atomically and may be read at any time.
type Stats struct {
	Open          atomic.Int64 // connections currently served by the loops
	Accepted      atomic.Int64 // connections handed to the loops
	ClosedClient  atomic.Int64 // closed by the client (close frame or EOF)
	ClosedTimeout atomic.Int64 // closed for silence (4201) or a stuck close handshake
	ClosedSlow    atomic.Int64 // closed as slow consumers (backlog cap or write timeout)
	ClosedError   atomic.Int64 // closed by a protocol or socket error
	ClosedServer  atomic.Int64 // closed by the server (shutdown, terminate, auth)
	MessagesIn    atomic.Int64 // complete client messages
	BytesIn       atomic.Int64
	FramesOut     atomic.Int64 // frames written (or queued) to sockets
	BytesOut      atomic.Int64
}

// closeReason says why a connection ended, for Stats.
type closeReason uint8

const (
	byClient closeReason = iota
	byTimeout
	bySlow
	byError
	byServer
)

func (s *Stats) closed(r closeReason) {
	if s == nil {
		return
	}
	s.Open.Add(-1)
	[...]*atomic.Int64{&s.ClosedClient, &s.ClosedTimeout, &s.ClosedSlow, &s.ClosedError, &s.ClosedServer}[r].Add(1)
}

// counters are a loop's own tallies, added to Stats once per loop turn so
// that the hot path never touches a shared cache line.
type counters struct {
	messagesIn, bytesIn, framesOut, bytesOut int64
}

func (c *counters) flush(s *Stats) {
	if s == nil || *c == (counters{}) {
		return
	}
	s.MessagesIn.Add(c.messagesIn)
	s.BytesIn.Add(c.bytesIn)
	s.FramesOut.Add(c.framesOut)
	s.BytesOut.Add(c.bytesOut)
	*c = counters{}
}

package netpoll

import "github.com/roostproject/roost/internal/connstats"

// counters are a loop's own tallies, added to the shared Stats once per loop
// turn so that the hot path never touches a shared cache line.
type counters struct {
	messagesIn, bytesIn, framesOut, bytesOut int64
}

func (c *counters) flush(s *connstats.Stats) {
	if s == nil || *c == (counters{}) {
		return
	}
	s.MessagesIn.Add(c.messagesIn)
	s.BytesIn.Add(c.bytesIn)
	s.FramesOut.Add(c.framesOut)
	s.BytesOut.Add(c.bytesOut)
	*c = counters{}
}

package server

import (
	"context"
	"runtime/debug"
	"time"
)

// A burst of handshakes (a reconnect storm, a deploy) leaves the heap full of
// the handshakes' garbage, and the Go runtime keeps those pages, and up to
// the heap goal (gc_percent above the live heap) plus a tenth, until the heap
// next grows, which a server of idle connections may never do: after a burst
// of TLS handshakes RSS stayed about 1.6 times the live heap. Once a burst is
// over, the server collects and returns the free pages to the system at once.
const (
	releaseTick = 2 * time.Second
	burstMin    = 1000 // handshakes without a quiet tick between them that make a burst
	quietMax    = 10   // at most this many within a tick is a quiet tick
	releaseGap  = time.Minute
)

// handshakeBurst follows the count of accepted connections, one reading per
// tick. A burst is counted over its ticks, not within one, because its rate
// is whatever the clients and a loaded machine manage: 250 handshakes a
// second leave the same garbage per connection as 2,000.
type handshakeBurst struct {
	last    int64
	run     int64     // handshakes since the last quiet tick
	release time.Time // when the heap was last released
}

// tick takes the count at now and reports whether a burst has just ended
// and no release happened within releaseGap. A burst that ends within
// releaseGap of a release is released at a later quiet tick.
func (b *handshakeBurst) tick(accepted int64, now time.Time) bool {
	n := accepted - b.last
	b.last = accepted
	switch {
	case n > quietMax:
		b.run += n
	case b.run < burstMin:
		b.run = 0 // a trickle, not a burst
	case now.Sub(b.release) >= releaseGap:
		b.run = 0
		b.release = now
		return true
	}
	return false
}

// releaseAfterBursts returns the heap's free pages after each burst of
// handshakes on the epoll transport, until ctx ends.
func (s *Server) releaseAfterBursts(ctx context.Context) {
	t := time.NewTicker(releaseTick)
	defer t.Stop()
	b := handshakeBurst{last: s.stats.Accepted.Load()}
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if b.tick(s.stats.Accepted.Load(), now) {
				debug.FreeOSMemory()
			}
		}
	}
}

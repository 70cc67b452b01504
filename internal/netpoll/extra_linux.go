package netpoll

import (
	"net/netip"
	"sync"
)

// extra is what only a busy connection needs: an incomplete frame, a
// fragmented message, a write backlog. Idle connections have none; a
// connection borrows one from the pool and gives it back when all three are
// empty again.
type extra struct {
	pending []byte         // an incomplete frame, kept until the rest arrives
	frag    []byte         // a fragmented message in progress (the decoder's buffer)
	backlog backlog        // bytes the socket has not taken yet (backlog_linux.go)
	edge    int            // backlog[edge:] starts on a frame boundary (shed_linux.go)
	counted int            // what the budget counts of the buffers: held() when last counted
	blocked int64          // Unix ns since which the backlog has made no progress
	from    netip.Addr     // a handshaking connection's client address
	source  netip.AddrPort // the client its PROXY header named, if any
	proxy   bool           // a PROXY header is awaited before the request head
}

var extraPool = sync.Pool{New: func() any { return new(extra) }}

// maxPooled is the largest buffer worth keeping in the pool.
const maxPooled = 64 << 10

// ext returns the connection's extra, borrowing one if it has none.
func (c *conn) ext() *extra {
	if c.x == nil {
		c.x = extraPool.Get().(*extra)
	}
	return c.x
}

// tidy gives the extra back once nothing is pending.
func (c *conn) tidy() {
	x := c.x
	if x == nil || len(x.pending) > 0 || x.frag != nil || x.backlog.Len() > 0 {
		return
	}
	if x.counted != 0 {
		c.recount()
	}
	c.x = nil
	putExtra(x)
}

func putExtra(x *extra) {
	if cap(x.pending) > maxPooled {
		x.pending = nil
	}
	chunks := x.backlog.chunks[:0] // emptied: the chunks went back to their pool
	if cap(chunks)*chunkSize > maxPooled {
		chunks = nil // the list of a backlog that was large
	}
	*x = extra{pending: x.pending[:0], backlog: backlog{chunks: chunks}}
	extraPool.Put(x)
}

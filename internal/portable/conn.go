package portable

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// conn is one connection of the portable transport. sess is touched only on
// the dispatcher goroutine; the rest as each field says.
type conn struct {
	t    *Transport
	nc   net.Conn
	sess session.Session
	// deflate: permessage-deflate was negotiated; set before the
	// goroutines start, then only read.
	deflate bool

	held    atomic.Int64 // bytes queued or being written, counted in the node's budget
	mu      sync.Mutex   // guards queue, queued, closing, failed, why
	queue   [][]byte
	queued  int
	closing bool // a close frame is queued: nothing may follow it
	failed  bool // the writer gave up: the connection is being torn down
	why     transport.Cause
	wake    chan struct{}
	done    chan struct{} // closed when the reader has ended
	written chan struct{} // closed when the writer has ended

	// Reader goroutine only.
	ws     ws.State
	frag   []byte
	pinged bool
}

var _ session.Conn = (*conn)(nil)

func newConn(t *Transport, nc net.Conn, st ws.State) *conn {
	return &conn{t: t, nc: nc, ws: st, deflate: st.Deflate(), wake: make(chan struct{}, 1), done: make(chan struct{}), written: make(chan struct{})}
}

// Shard implements session.Conn.
func (c *conn) Shard() int { return c.t.cfg.Shard }

// Send implements session.Conn.
func (c *conn) Send(frame []byte) { c.enqueue(frame, false) }

// Close implements session.Conn: queue a close frame; the writer then gives
// the client CloseTimeout to answer before the socket is closed. A close
// with no cause recorded before it is the server's.
func (c *conn) Close(code ws.CloseCode, reason string) {
	c.setReason(connstats.Server)
	c.enqueue(ws.AppendClose(nil, code, reason), true)
}

func (c *conn) enqueue(frame []byte, isClose bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.failed {
		return
	}
	if c.t.cfg.Policy.Overflows(c.queued, len(frame)) || c.overBudget(len(frame)) {
		// A slow consumer: the close frame goes after what is queued, past
		// the cap, so a client that reads again learns why (4100: pusher-js
		// backs off, then reconnects); the write timeout ends one that does not.
		c.why.Set(connstats.Slow)
		c.t.cfg.Logger.Warn("slow consumer closed", "backlog", c.queued+len(frame))
		frame, isClose = transport.SlowClose, true
		c.nc.SetReadDeadline(time.Now().Add(c.t.cfg.Policy.CloseTimeout)) // the reader gives up then
	}
	slots := cap(c.queue)
	c.queue = append(c.queue, frame)
	c.queued += len(frame)
	c.hold(len(frame) + (cap(c.queue)-slots)*slotSize)
	c.closing = isClose
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes queued frames until the connection ends; once the
// reader has ended it writes what is left (a close frame) and stops.
func (c *conn) writeLoop() {
	defer close(c.written)
	for {
		select {
		case <-c.wake:
		case <-c.done:
			c.writeQueued()
			return
		}
		if !c.writeQueued() {
			<-c.done
			return
		}
	}
}

// writeQueued writes everything queued; false means the writer is done.
func (c *conn) writeQueued() bool {
	c.mu.Lock()
	frames, closing := c.queue, c.closing
	c.queue, c.queued = nil, 0
	c.mu.Unlock()
	for i, f := range frames {
		c.nc.SetWriteDeadline(time.Now().Add(c.t.cfg.Policy.WriteTimeout))
		n, err := c.nc.Write(f)
		c.t.stats.BytesOut.Add(int64(n))
		if err != nil {
			c.setReason(writeFailure(err))
			c.nc.Close()
			c.hold(-queuedBytes(frames[i:]) - cap(frames)*slotSize)
			return false
		}
		c.hold(-len(f))
		c.t.stats.FramesOut.Add(1)
	}
	c.hold(-cap(frames) * slotSize)
	if closing {
		c.nc.SetReadDeadline(time.Now().Add(c.t.cfg.Policy.CloseTimeout))
		return false
	}
	return true
}

// slotSize is what a frame costs in the queue's array, on top of its bytes:
// the budget counts the array's capacity, which appending runs ahead of
// its length.
const slotSize = int(unsafe.Sizeof([]byte(nil)))

// hold counts n more bytes (negative: fewer) held for the connection.
func (c *conn) hold(n int) {
	c.held.Add(int64(n))
	c.t.cfg.Policy.Budget.Add(n)
}

// overBudget reports whether n more bytes pass the node's budget while the
// connection holds more than its share of it (transport.Budget.Sheds).
func (c *conn) overBudget(n int) bool {
	return c.t.cfg.Policy.Budget.Sheds(c.held.Load(), n, c.t.count.Load())
}

// queuedBytes returns the bytes of frames.
func queuedBytes(frames [][]byte) int {
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	return n
}

func (c *conn) stopWriter() {
	close(c.done)
	<-c.written
	c.mu.Lock()
	c.hold(-c.queued - cap(c.queue)*slotSize) // what the writer never took
	c.queue, c.queued = nil, 0
	c.mu.Unlock()
	c.nc.Close()
}

// readLoop reads and decodes until the connection ends, keeping the
// activity deadlines (server ping, then 4201).
func (c *conn) readLoop(buffered []byte) {
	buf := make([]byte, 4096)
	pending := append([]byte(nil), buffered...)
	for {
		if !c.decode(&pending) {
			return
		}
		c.nc.SetReadDeadline(time.Now().Add(c.idleWait()))
		n, err := c.nc.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) && !c.isClosing() {
			c.idle()
			continue
		}
		if n == 0 && err != nil {
			return
		}
		c.pinged = false
		c.t.stats.BytesIn.Add(int64(n))
		pending = append(pending, buf[:n]...)
	}
}

func (c *conn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing || c.failed
}

// idleWait is how long the reader waits for data before acting: the close
// timeout once closing, else the policy's silence.
func (c *conn) idleWait() time.Duration {
	if c.isClosing() {
		return c.t.cfg.Policy.CloseTimeout
	}
	return c.t.cfg.Policy.Silence(c.pinged)
}

// idle pings a silent client, or closes it with 4201 if a ping went unanswered.
func (c *conn) idle() {
	if c.pinged {
		c.setReason(connstats.Timeout)
		c.t.do(func() { c.Close(transport.PongTimeoutCode, transport.PongTimeoutReason) })
		return
	}
	c.pinged = true
	c.t.do(func() { c.call().Ping() })
}

// decode handles the complete frames in *pending; false ends the connection.
func (c *conn) decode(pending *[]byte) bool {
	n, err := ws.Decode(&c.ws, *pending, c.t.cfg.Policy.MaxMessage, &c.frag, (*reader)(c))
	if err != nil {
		var ce *ws.CloseError
		c.setReason(connstats.Error)
		if errors.As(err, &ce) {
			c.Close(ce.Code, ce.Reason)
		}
		return false
	}
	rest := (*pending)[n:]
	*pending = append((*pending)[:0], rest...)
	return !c.ended()
}

// writeFailure classifies a failed write: one that timed out is a slow
// consumer (docs/design.md, "Writes go straight to the socket"), anything
// else a socket error.
func writeFailure(err error) connstats.Reason {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return connstats.Slow
	}
	return connstats.Error
}

func (c *conn) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// call lends the session the transport's environment and this connection;
// only on the dispatcher goroutine.
func (c *conn) call() session.Call { return c.sess.On(c.t.cfg.Env, c) }

// SocketSeq implements hub.Subscriber.
func (c *conn) SocketSeq() uint64 { return c.sess.SocketSeq() }

// Deliver implements hub.Subscriber.
func (c *conn) Deliver(f *hub.Frame) { c.Send(f.For(c.deflate)) }

// Terminate implements hub.Subscriber.
func (c *conn) Terminate() { c.call().Terminate() }

// Moved implements hub.Subscriber.
func (c *conn) Moved(ch *hub.Channel, index int) { c.sess.Moved(ch, index) }

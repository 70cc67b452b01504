package netpoll

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// Connection flags.
const (
	fClosing   uint16 = 1 << iota // close frame sent or received: no more data frames
	fDead                         // the socket is to be released at the next reap
	fReleased                     // the socket is closed
	fPinged                       // a server ping awaits any answer
	fOut                          // EPOLLOUT is armed
	fDeferred                     // read input waits for a later turn (budget_linux.go)
	fTLS                          // the connection speaks TLS (tls_linux.go)
	fMore                         // the TLS layer may hold input: read again next turn
	fSlowTLS                      // a TLS slow consumer's close frame is still to be encrypted
	fHandshake                    // accepted by the loop, its request head still being read
	fHello                        // being upgraded: frames join the 101 in one write
	fRing                         // a send waits in the loop's io_uring (uring_linux.go)
	fShed                         // closed for the node's backlog budget (shed_linux.go)
)

// conn is one WebSocket connection owned by a loop. It is the only memory an
// idle connection has in the Go heap, so keep it small: whatever only a busy
// connection needs lives in x, which an idle connection does not have.
type conn struct {
	l     *loop
	fd    int32 // the socket
	slot  int32 // index in the loop's tables (conns, wheel) and epoll's event data
	flags uint16
	ws    ws.State
	why   transport.Cause // why the connection is ending, once it is
	seen  int64           // Unix ns of the last byte received
	mark  int64           // Unix ns: ping sent (fPinged) or close deadline (fClosing)
	x     *extra          // buffers of a connection in the middle of something, or nil
	sess  session.Session
}

var _ session.Conn = (*conn)(nil)
var _ ws.Handler = (*conn)(nil)

// takeSlot returns a free index in the loop's tables, growing them when
// none is free. Slots are the loop's own, dense from 0, so a loop's tables
// grow with its connections, not with the process's highest descriptor.
func (l *loop) takeSlot() int32 { return takeFree(&l.conns, &l.free) }

// takeFree returns an index of table that free lists, or grows table by
// one nil entry when free is empty.
func takeFree[T any](table *[]*T, free *[]int32) int32 {
	if n := len(*free); n > 0 {
		slot := (*free)[n-1]
		*free = (*free)[:n-1]
		return slot
	}
	*table = append(*table, nil)
	return int32(len(*table) - 1)
}

// call lends the session the loop's environment and this connection.
func (c *conn) call() session.Call { return c.sess.On(c.l.cfg.Env, c) }

// add registers a new connection with the loop and greets it.
func (l *loop) add(r *addReq) {
	slot := l.takeSlot()
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: slot}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, r.fd, &ev); err != nil {
		l.log.Warn("epoll_ctl add failed", "err", err)
		l.free = append(l.free, slot)
		l.closeSocket(r.fd)
		return
	}
	l.capSend(r.fd)
	c := &conn{l: l, fd: int32(r.fd), slot: slot, seen: l.now, ws: r.ws}
	l.conns[slot] = c
	if r.tls != nil {
		l.attachTLS(c, r.tls)
	}
	l.count.Add(1)
	if s := l.cfg.Stats; s != nil {
		s.Opened()
	}
	l.wheel.Schedule(c.slot, c.deadline()+l.jitter())
	c.call().Init(r.app)
	if l.draining {
		c.call().Shutdown()
	} else if len(r.buffered) > 0 {
		c.decode(r.buffered)
	}
	if c.flags&fTLS != 0 {
		c.moreTLS() // records read with the handshake wait in the TLS layer, where epoll cannot see them
	}
}

// Shard implements session.Conn.
func (c *conn) Shard() int { return c.l.shard }

// Send implements session.Conn: write now, keep what the socket refuses.
func (c *conn) Send(frame []byte) {
	if c.flags&(fClosing|fDead) == 0 {
		c.write(frame)
	}
}

// Close implements session.Conn: send a close frame and wait (up to the
// close timeout) for the client's, then release the socket. A close with no
// cause recorded before it is the server's.
func (c *conn) Close(code ws.CloseCode, reason string) {
	if c.flags&(fClosing|fDead) != 0 {
		return
	}
	c.why.Set(connstats.Server)
	c.write(ws.AppendClose(nil, code, reason))
	if c.flags&fClosing == 0 { // the write did not end the connection itself
		c.closing()
	}
}

// closing marks a close frame sent or queued: nothing more is written, and
// the socket is released when the client answers or at the close deadline.
func (c *conn) closing() {
	c.flags |= fClosing
	c.mark = c.l.now + int64(c.l.cfg.Policy.CloseTimeout)
	c.l.wheel.Schedule(c.slot, c.mark)
	c.l.dying = append(c.l.dying, c)
}

// write sends a frame: encrypted on a TLS connection, as it is otherwise.
func (c *conn) write(frame []byte) {
	l := c.l
	l.local.framesOut++
	l.local.bytesOut += int64(len(frame))
	if c.flags&fHello != 0 {
		l.hello = append(l.hello, frame...)
		return
	}
	if c.flags&fTLS != 0 {
		c.writeTLS(frame)
		return
	}
	if l.uring != nil && c.ringWrite(frame) {
		return
	}
	c.writeRaw(frame)
}

// writeRaw writes bytes to the socket now and keeps what it refuses.
func (c *conn) writeRaw(frame []byte) {
	if c.flags&fDead != 0 { // a TLS close_notify at release: one try
		writeFD(int(c.fd), frame)
		return
	}
	if c.backlogged() {
		c.queue(frame)
		return
	}
	n, err := writeFD(int(c.fd), frame)
	c.wrote(frame, n, err)
}

// wrote takes the result of writing frame at once: n bytes sent, or err.
// What the socket refused waits in the backlog until epoll says it can
// take more.
func (c *conn) wrote(frame []byte, n int, err error) {
	l := c.l
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		l.kill(c, connstats.Error)
		return
	}
	if n < len(frame) {
		x := c.ext()
		x.blocked = l.now
		x.edge = len(frame) - max(n, 0) // kept whole if shed: it may be a frame begun, or a 101 and frames
		c.queue(frame[max(n, 0):])
		c.armOut(true)
		c.scheduleBefore(c.writeDeadline())
	}
}

// queue appends to the backlog, closing a consumer that exceeds the cap.
// Once closing, what is still written (a TLS slow consumer's close frame)
// goes past the cap.
func (c *conn) queue(b []byte) {
	x := c.ext()
	if c.flags&fClosing == 0 && c.l.cfg.Policy.Overflows(x.backlog.Len(), len(b)) {
		c.slow(b)
		return
	}
	c.grow(b)
	if c.flags&fClosing == 0 {
		c.l.fit()
	}
}

// slow closes a consumer whose backlog would pass the cap with b. The close
// frame (4100: pusher-js backs off, then reconnects) goes after the
// backlog, past the cap, so a client that reads again learns why; one that
// does not is released at the close deadline. An empty backlog means b is
// the rest of a frame already begun on the wire: it is kept, so the close
// frame starts on a frame boundary.
func (c *conn) slow(b []byte) {
	x := c.x
	c.l.log.Warn("slow consumer closed", "backlog", x.backlog.Len()+len(b))
	if x.backlog.Len() == 0 || c.flags&fTLS != 0 { // a TLS record must stay whole to decrypt
		c.grow(b)
	}
	c.why.Set(connstats.Slow)
	c.closing()
	if c.flags&fTLS != 0 {
		c.flags |= fSlowTLS // encrypted once crypto/tls's write returns (tls_linux.go)
		return
	}
	c.grow(transport.SlowClose)
	c.l.fit()
}

// flush writes the backlog when the socket can take more.
func (c *conn) flush() {
	if !c.backlogged() || c.flags&fDead != 0 {
		return
	}
	x := c.x
	n, err := x.backlog.write(int(c.fd))
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil {
		c.l.kill(c, connstats.Error)
		return
	}
	x.blocked = c.l.now
	if c.flags&fTLS == 0 {
		x.advance(n)
	}
	x.backlog.pop(n)
	c.recount()
	if x.backlog.Len() == 0 {
		c.armOut(false)
		c.tidy()
	}
}

func (c *conn) armOut(on bool) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.slot}
	if on {
		ev.Events |= unix.EPOLLOUT
		c.flags |= fOut
	} else {
		c.flags &^= fOut
	}
	unix.EpollCtl(c.l.epfd, unix.EPOLL_CTL_MOD, int(c.fd), &ev)
}

// read takes what the socket has into the loop's shared buffer.
func (c *conn) read() {
	if c.flags&fDead != 0 {
		return
	}
	if c.flags&fTLS != 0 {
		c.readTLS()
		return
	}
	if c.flags&fHandshake != 0 {
		c.readHead()
		return
	}
	l := c.l
	n, err := readFD(int(c.fd), l.buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if n <= 0 {
		l.kill(c, connstats.Client)
		return
	}
	c.seen = l.now
	c.flags &^= fPinged
	l.local.bytesIn += int64(n)
	c.decode(l.buf[:n])
}

// decode feeds data to the frame decoder and keeps an incomplete frame.
// Only a connection with an incomplete frame or a fragmented message
// in progress has buffers of its own.
func (c *conn) decode(data []byte) {
	if c.x != nil && len(c.x.pending) > 0 {
		c.x.pending = append(c.x.pending, data...)
		data = c.x.pending
	}
	l := c.l
	l.frag = nil
	if c.x != nil {
		l.frag = c.x.frag
	}
	l.budget = turnBudget
	n, err := ws.Decode(&c.ws, data, l.cfg.Policy.MaxMessage, &l.frag, c)
	frag := l.frag
	l.frag = nil
	if frag != nil || c.x != nil {
		c.ext().frag = frag
	}
	if err != nil {
		c.fail(err)
		return
	}
	if c.flags&fDead == 0 {
		c.keep(data[n:])
		c.deferRest(n < len(data))
	}
}

// keep stores the unconsumed tail of the input as the pending frame.
func (c *conn) keep(rest []byte) {
	if len(rest) > 0 || c.x != nil {
		x := c.ext()
		x.pending = append(x.pending[:0], rest...)
		c.recount()
		if c.flags&fClosing == 0 {
			c.l.fit()
		}
	}
	c.tidy()
}

// fail closes the connection after a protocol violation (RFC 6455 7.1.7).
func (c *conn) fail(err error) {
	c.why.Set(connstats.Error)
	var ce *ws.CloseError
	if errors.As(err, &ce) {
		c.Close(ce.Code, ce.Reason)
	}
	c.l.kill(c, connstats.Error)
}

// SocketSeq implements hub.Subscriber.
func (c *conn) SocketSeq() uint64 { return c.sess.SocketSeq() }

// Deliver implements hub.Subscriber: write a published frame, compressed
// if the connection negotiated it.
func (c *conn) Deliver(f *hub.Frame) { c.Send(f.For(c.ws.Deflate())) }

// Terminate implements hub.Subscriber.
func (c *conn) Terminate() { c.call().Terminate() }

// Moved implements hub.Subscriber.
func (c *conn) Moved(ch *hub.Channel, index int) { c.sess.Moved(ch, index) }

package netpoll

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/ws"
)

// Connection flags.
const (
	fClosing  uint8 = 1 << iota // close frame sent or received: no more data frames
	fDead                       // the socket is to be released at the next reap
	fReleased                   // the socket is closed
	fPinged                     // a server ping awaits any answer
	fOut                        // EPOLLOUT is armed
)

// conn is one WebSocket connection owned by a loop. It is the only memory an
// idle connection has in the Go heap, so keep it small: no buffer is held
// unless a frame is incomplete or a write is pending.
type conn struct {
	l       *loop
	fd      int32
	flags   uint8
	ws      ws.State
	seen    int64   // Unix ns of the last byte received
	mark    int64   // Unix ns: ping sent (fPinged) or close deadline (fClosing)
	blocked int64   // Unix ns since which the backlog has made no progress
	pending *[]byte // an incomplete frame, or nil
	frag    []byte  // a fragmented message in progress (the decoder's pooled buffer), or nil
	backlog *[]byte // bytes the socket has not taken yet, or nil
	sess    session.Session
}

var _ session.Conn = (*conn)(nil)
var _ ws.Handler = (*conn)(nil)

// add registers a new connection with the loop and greets it.
func (l *loop) add(r *addReq) {
	fd := r.fd
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.log.Warn("epoll_ctl add failed", "err", err)
		unix.Close(fd)
		return
	}
	for fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*conn, len(l.conns)+64)...)
	}
	c := &conn{l: l, fd: int32(fd), seen: l.now}
	l.conns[fd] = c
	l.count.Add(1)
	if s := l.cfg.Stats; s != nil {
		s.Open.Add(1)
		s.Accepted.Add(1)
	}
	l.wheel.Schedule(c.fd, c.deadline()+l.jitter())
	c.sess.Init(l.cfg.Env, c, r.app)
	if l.draining {
		c.sess.Shutdown()
	} else if len(r.buffered) > 0 {
		c.decode(r.buffered)
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
// close timeout) for the client's, then release the socket.
func (c *conn) Close(code ws.CloseCode, reason string) {
	if c.flags&(fClosing|fDead) != 0 {
		return
	}
	c.write(ws.AppendClose(nil, code, reason))
	c.flags |= fClosing
	c.mark = c.l.now + int64(c.l.cfg.CloseTimeout)
	c.l.wheel.Schedule(c.fd, c.mark)
	c.l.dying = append(c.l.dying, c)
}

func (c *conn) write(frame []byte) {
	l := c.l
	l.local.framesOut++
	l.local.bytesOut += int64(len(frame))
	if c.backlog != nil {
		c.queue(frame)
		return
	}
	n, err := unix.Write(int(c.fd), frame)
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		l.kill(c, byError)
		return
	}
	if n < 0 {
		n = 0
	}
	if n < len(frame) {
		c.backlog = getBuf()
		c.blocked = l.now
		c.queue(frame[n:])
		c.armOut(true)
		c.scheduleBefore(c.blocked + int64(l.cfg.WriteTimeout))
	}
}

// queue appends to the backlog, closing a consumer that exceeds the cap.
func (c *conn) queue(b []byte) {
	if len(*c.backlog)+len(b) > c.l.cfg.WriteBacklog {
		c.l.kill(c, bySlow)
		return
	}
	*c.backlog = append(*c.backlog, b...)
}

// flush writes the backlog when the socket can take more.
func (c *conn) flush() {
	if c.backlog == nil || c.flags&fDead != 0 {
		return
	}
	b := *c.backlog
	n, err := unix.Write(int(c.fd), b)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil {
		c.l.kill(c, byError)
		return
	}
	c.blocked = c.l.now
	if n < len(b) {
		*c.backlog = b[:copy(b, b[n:])]
		return
	}
	putBuf(c.backlog)
	c.backlog = nil
	c.armOut(false)
}

func (c *conn) armOut(on bool) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.fd}
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
	l := c.l
	n, err := unix.Read(int(c.fd), l.buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if n <= 0 {
		l.kill(c, byClient)
		return
	}
	c.seen = l.now
	c.flags &^= fPinged
	l.local.bytesIn += int64(n)
	c.decode(l.buf[:n])
}

// decode feeds data to the frame decoder and keeps an incomplete frame.
func (c *conn) decode(data []byte) {
	if c.pending != nil {
		*c.pending = append(*c.pending, data...)
		data = *c.pending
	}
	n, err := ws.Decode(&c.ws, data, c.l.cfg.MaxMessage, &c.frag, c)
	if err != nil {
		c.fail(err)
		return
	}
	if c.flags&fDead != 0 {
		return
	}
	c.keep(data[n:])
}

// keep stores the unconsumed tail of the input in the pending buffer, or
// returns the buffer to the pool when nothing is left.
func (c *conn) keep(rest []byte) {
	if len(rest) == 0 {
		if c.pending != nil {
			putBuf(c.pending)
			c.pending = nil
		}
		return
	}
	if c.pending == nil {
		c.pending = getBuf()
	}
	*c.pending = append((*c.pending)[:0], rest...)
}

// fail closes the connection after a protocol violation (RFC 6455 7.1.7).
func (c *conn) fail(err error) {
	var ce *ws.CloseError
	if !errors.As(err, &ce) {
		c.l.kill(c, byError)
		return
	}
	c.Close(ce.Code, ce.Reason)
	c.l.kill(c, byError)
}

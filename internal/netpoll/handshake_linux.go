package netpoll

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/proxyproto"
	"github.com/roostproject/roost/internal/ws"
)

// A loop that listens accepts connections itself and reads each one's
// request head on the loop, so that a WebSocket handshake costs no
// goroutine, no buffer of net/http's and no trip through Go's poller
// (docs/design.md, "Accepting on the loops"). A handshaking connection has
// fHandshake, borrows an extra for the bytes read so far, and has the
// handshake deadline on the wheel. When the head is complete the
// Handshaker either accepts it, and the loop answers 101 and
// pusher:connection_established in one write, or the connection goes to
// net/http with the bytes read, to be served there as before.

// listenSlot is the epoll event data of the listening socket.
const listenSlot = -2

// acceptBatch bounds the connections one loop accepts in one turn, so that
// a connection storm does not hold the loop.
const acceptBatch = 64

// Listen makes the loops accept connections on ln's socket themselves and
// give them to h. ln stays open (close it after Unlisten) and must not be
// used to accept.
func (p *Poller) Listen(ln net.Listener, h Handshaker, maxHead int, timeout time.Duration) error {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return fmt.Errorf("netpoll: %T has no file descriptor", ln)
	}
	fd, err := dupFD(sc)
	if err != nil {
		return err
	}
	tuneSocket(fd) // accepted sockets inherit it: no system calls per connection
	done := make(chan error, len(p.loops))
	for _, l := range p.loops {
		l.post(op{kind: opFunc, f: func() { done <- l.listen(fd, h, maxHead, timeout) }})
	}
	for range p.loops {
		err = errors.Join(err, <-done)
	}
	p.lfd = fd
	return err
}

// Unlisten stops the loops accepting and closes their listening socket.
// A loop that has already stopped (the poller was shut down first, as
// net/http closes its listener after the server's shutdown) is not waited
// for: it accepts nothing any more.
func (p *Poller) Unlisten() {
	if p.lfd < 0 {
		return
	}
	for _, l := range p.loops {
		done := make(chan struct{})
		l.post(op{kind: opFunc, f: func() { l.unlisten(); l.lfd = -1; close(done) }})
		select {
		case <-done:
		case <-l.stopped:
		}
	}
	unix.Close(p.lfd)
	p.lfd = -1
}

func (l *loop) listen(fd int, h Handshaker, maxHead int, timeout time.Duration) error {
	l.lfd, l.hs, l.maxHead, l.headTimeout = fd, h, maxHead, timeout
	return l.relisten()
}

// relisten registers the listening socket with the loop's epoll.
func (l *loop) relisten() error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLEXCLUSIVE, Fd: listenSlot}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, l.lfd, &ev); err != nil {
		return err
	}
	l.accepting = true
	return nil
}

// unlisten stops the loop accepting; its handshaking connections go on.
func (l *loop) unlisten() {
	if !l.accepting {
		return
	}
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, l.lfd, nil)
	l.accepting = false
}

// accept takes up to acceptBatch new connections.
func (l *loop) accept() {
	for range acceptBatch {
		if !l.accepting || l.holdBack() {
			return
		}
		fd, from, err := acceptFrom(l.lfd, &l.peer)
		if err != nil {
			if err != unix.EAGAIN && err != unix.EINTR && err != unix.ECONNABORTED {
				l.acceptFailed(err)
			}
			return
		}
		l.handshaking(fd, from)
	}
}

// tuneSocket sets what Go's net package sets on each accepted TCP socket:
// no Nagle delay, and keepalive probes after 15 s idle every 15 s. Set on
// the listening socket, Linux copies them to every socket it accepts.
func tuneSocket(fd int) {
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 15)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 15)
}

// handshaking registers an accepted socket that has yet to send its request.
func (l *loop) handshaking(fd int, from netip.Addr) {
	slot := l.takeSlot()
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: slot}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.free = append(l.free, slot)
		unix.Close(fd)
		return
	}
	c := &conn{l: l, fd: int32(fd), slot: slot, flags: fHandshake, seen: l.now, mark: l.now + int64(l.headTimeout)}
	l.handshakes++
	l.conns[slot] = c
	x := c.ext()
	x.from = from
	x.proxy = l.cfg.ProxyHeader != nil && l.cfg.ProxyHeader(from)
	l.wheel.Schedule(slot, c.mark)
	c.readHead() // the request often arrives with the connection
}

// readHead reads the request head so far, and decides once it is whole.
func (c *conn) readHead() {
	l, x := c.l, c.x
	n, err := readFD(int(c.fd), l.buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if n <= 0 {
		l.kill(c, 0) // gone before its request; net/http would not count it either
		return
	}
	x.pending = append(x.pending, l.buf[:n]...)
	if x.proxy && !c.readProxy() {
		return
	}
	end := bytes.Index(x.pending, []byte("\r\n\r\n"))
	switch {
	case end >= 0 && end+4 <= l.maxHead:
		c.decideHead(end + 4)
	case end >= 0 || len(x.pending) > l.maxHead:
		c.handoff() // net/http answers 431
	}
}

// readProxy reads the PROXY header at the start of x.pending, if it is
// whole, and reports whether the request head may be read after it. A
// connection whose header is invalid (or longer than proxyproto.MaxHeader)
// is closed; one whose header does not come within the handshake timeout
// is closed by it, as a slow request head is.
func (c *conn) readProxy() bool {
	l, x := c.l, c.x
	h, n, err := proxyproto.Parse(x.pending)
	switch {
	case err == proxyproto.ErrIncomplete:
		return false
	case err != nil:
		if l.cfg.ProxyRefused != nil {
			l.cfg.ProxyRefused(x.from, err)
		}
		l.kill(c, 0)
		return false
	}
	if h.Source.IsValid() {
		x.source, x.from = h.Source, h.Source.Addr().Unmap()
	}
	x.proxy = false
	x.pending = x.pending[:copy(x.pending, x.pending[n:])]
	return true
}

// decideHead asks the Handshaker about the head x.pending[:n].
func (c *conn) decideHead(n int) {
	x := c.x
	up, answer := c.l.hs.Handshake(int(c.fd), x.pending[:n], x.from)
	switch {
	case answer != nil:
		c.answer(answer)
		return
	case up.App == nil:
		c.handoff()
		return
	}
	rest := x.pending[n:]
	x.pending = x.pending[:copy(x.pending, rest)]
	c.upgrade(up)
}

// upgrade turns a handshaking connection into a WebSocket: the 101, with
// the extensions the handshake negotiated, then what the session sends
// first (pusher:connection_established), in one write.
func (c *conn) upgrade(up Accepted) {
	l := c.l
	c.flags = c.flags&^fHandshake | fHello
	l.decided()
	c.ws = up.WS
	l.count.Add(1)
	if s := l.cfg.Stats; s != nil {
		s.Opened()
	}
	l.wheel.Schedule(c.slot, c.deadline()+l.jitter())
	l.hello = ws.AppendSwitching(l.hello[:0], up.Key, up.Extensions)
	c.call().Init(up.App)
	c.flags &^= fHello
	c.writeRaw(l.hello)
	if c.flags&fDead != 0 {
		return
	}
	rest := c.x.pending
	if len(rest) == 0 {
		c.x.pending = rest[:0] // the usual case: the buffer goes back to the pool with the extra
	} else {
		c.x.pending = nil // rest still uses it
	}
	c.tidy()
	if l.draining {
		c.call().Shutdown()
	} else if len(rest) > 0 {
		c.decode(rest)
	}
}

// handoff gives a handshaking connection, with the bytes read so far, to
// the Handshaker's Handoff, and forgets it.
func (c *conn) handoff() {
	l := c.l
	data := bytes.Clone(c.x.pending)
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, int(c.fd), nil)
	l.wheel.Cancel(c.slot)
	l.conns[c.slot] = nil
	l.free = append(l.free, c.slot)
	c.flags |= fDead | fReleased
	x := c.x
	c.x = nil
	defer putExtra(x)
	l.decided()
	f := os.NewFile(uintptr(c.fd), "")
	nc, err := net.FileConn(f) // a duplicate, in Go's poller
	f.Close()
	if err != nil {
		l.log.Warn("cannot hand a connection to net/http", "err", err)
		return
	}
	rc := &replayConn{Conn: nc, data: data}
	if x.source.IsValid() {
		rc.remote = net.TCPAddrFromAddrPort(x.source)
	}
	l.hs.Handoff(rc)
}

// answer writes a refusal and closes the connection; what the socket does
// not take at once is dropped, as the client is being turned away.
func (c *conn) answer(b []byte) {
	writeFD(int(c.fd), b)
	unix.Shutdown(int(c.fd), unix.SHUT_WR)
	c.l.kill(c, 0)
}

// timedOut closes a connection whose request head did not arrive in time.
func (c *conn) timedOut() {
	c.l.hs.HandshakeTimedOut()
	c.l.kill(c, 0)
}

// replayConn is a connection handed to net/http: it reads the bytes the
// loop read first.
type replayConn struct {
	net.Conn
	data   []byte
	remote net.Addr // the client a PROXY header named; nil means the peer
}

// RemoteAddr implements net.Conn.
func (r *replayConn) RemoteAddr() net.Addr {
	if r.remote != nil {
		return r.remote
	}
	return r.Conn.RemoteAddr()
}

// Read implements net.Conn.
func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.data) > 0 {
		n := copy(p, r.data)
		r.data = r.data[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}

// NetConn returns the connection under r.
func (r *replayConn) NetConn() net.Conn { return r.Conn }

// SyscallConn lets Dup reach the socket (syscall.Conn).
func (r *replayConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := r.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// acceptFailed stops this loop accepting for a moment after accept(2)
// failed (out of descriptors, most likely): the socket stays readable, and
// epoll would otherwise wake the loop at once, again and again.
func (l *loop) acceptFailed(err error) {
	l.log.Warn("accept failed; this loop accepts again in 100 ms", "err", err)
	l.unlisten()
	time.AfterFunc(100*time.Millisecond, func() {
		l.post(op{kind: opFunc, f: func() {
			if !l.draining && !l.accepting && l.lfd >= 0 { // not unlistened meanwhile
				l.relisten()
			}
		}})
	})
}

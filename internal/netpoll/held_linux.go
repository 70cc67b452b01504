package netpoll

import (
	"crypto/tls"
	"io"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/tlsidle"
)

// Held is a socket an epoll loop holds for a Feed once net/http has let
// it go: it owns no goroutine, no timer and no buffer while it has nothing
// to write, where a held net/http response owns two goroutines and the
// connection's buffers. Anyone may call its methods.
type Held struct {
	l     *loop
	feed  Feed
	fd    int
	tc    *tls.Conn // encrypts what is written over the socket's Stream; nil for plain HTTP
	slot  int32
	woken atomic.Bool  // a pump is posted to the loop and has not started
	since atomic.Int64 // Unix ns since which written bytes wait for the socket; 0: none wait
	pumpF func()       // h.pump, made once

	// Owned by the loop's goroutine.
	pending []byte // what the socket has not taken yet
	last    bool   // the socket closes once pending is written
	done    bool   // the socket is closed
}

// heldEvent is the epoll event data of held slot i: below the loop's own
// (wakeSlot, listenSlot), so that it never names a connection's slot.
func heldEvent(i int32) int32 { return -3 - i }

// heldSlot is the held slot of epoll event data, or -1 if it names none.
func heldSlot(data int32) int32 {
	if data > -3 {
		return -1
	}
	return -3 - data
}

// Hold takes over fd, a socket from Dup whose net.Conn the caller has
// closed, and writes what f gives whenever Wake is called, until f's last
// bytes are written, the client closes the socket, or End. Nothing is read
// from the socket: what the client sends is dropped, so the response must
// have said "Connection: close".
func (p *Poller) Hold(fd int, f Feed) *Held { return p.hold(fd, nil, f) }

// HoldTLS is Hold for the socket under tc, a TLS server connection over a
// Stream whose response has started: crypto/tls keeps encrypting what is
// written, and the loop moves its records, as AddTLS does for a WebSocket.
// The caller must not use tc afterwards.
func (p *Poller) HoldTLS(fd int, tc *tls.Conn, f Feed) *Held {
	tc.NetConn().(*Stream).detach()
	tlsidle.Forget(tc)
	tlsidle.Shrink(tc) // nothing more is read: the request's record buffer goes
	return p.hold(fd, tc, f)
}

func (p *Poller) hold(fd int, tc *tls.Conn, f Feed) *Held {
	l := p.loops[p.next.Add(1)%uint32(len(p.loops))]
	h := &Held{l: l, feed: f, fd: fd, tc: tc}
	h.pumpF = h.pump
	l.holding.Add(1)
	l.post(op{kind: opFunc, f: h.add})
	return h
}

// Wake tells the loop that the feed has something to write; wakes before
// the loop has pumped coalesce into one Take.
func (h *Held) Wake() {
	if !h.woken.Swap(true) {
		h.l.post(op{kind: opFunc, f: h.pumpF})
	}
}

// End closes the socket when the loop comes to it, dropping what it has not
// written, and tells the feed.
func (h *Held) End() { h.l.post(op{kind: opFunc, f: h.end}) }

// Blocked returns since when written bytes have waited for the socket to
// take them, or the zero time when none wait: a client that stops reading
// is a slow consumer once that passes the write timeout.
func (h *Held) Blocked() time.Time {
	if ns := h.since.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// add registers the socket with the loop and writes what is already there.
func (h *Held) add() {
	l := h.l
	h.slot = takeFree(&l.held, &l.freeHeld)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: heldEvent(h.slot)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, h.fd, &ev); err != nil {
		l.log.Warn("epoll_ctl add of a held socket failed", "err", err)
		l.held[h.slot] = h
		h.end()
		return
	}
	l.held[h.slot] = h
	l.capSend(h.fd)
	if h.tc != nil {
		h.tc.NetConn().(*Stream).c = h
	}
	h.pump()
}

// pump writes what the feed has, unless earlier bytes still wait.
func (h *Held) pump() {
	h.woken.Store(false)
	if h.done || len(h.pending) > 0 {
		return
	}
	out, last := h.feed.Take()
	h.write(out, last)
}

// write sends b, encrypted on TLS; what the socket refuses waits until
// epoll says it can take more. last closes the socket once b is written.
func (h *Held) write(b []byte, last bool) {
	if len(b) == 0 && !last {
		return
	}
	if h.tc == nil {
		h.writeRaw(b)
	} else if len(b) > 0 {
		h.tc.Write(b) // the records go to writeRaw
	}
	if h.done {
		return
	}
	if len(h.pending) > 0 {
		h.last = last
		return
	}
	if last {
		h.closeNotify()
		h.end()
	}
}

// writeRaw writes bytes to the socket now, and keeps what it refuses after
// what already waits; for crypto/tls (Stream.Write), whose buffer is its
// own, it keeps a copy.
func (h *Held) writeRaw(b []byte) {
	if h.done {
		return
	}
	if len(h.pending) > 0 {
		h.pending = append(h.pending, b...)
		return
	}
	n, err := writeFD(h.fd, b)
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		h.end()
		return
	}
	if n = max(n, 0); n < len(b) {
		if h.tc != nil {
			b = append([]byte(nil), b...)
		}
		h.pending = b[n:]
		h.since.Store(h.l.now)
		h.armOut(true)
	}
}

// readRaw implements socket; crypto/tls never reads a held socket.
func (h *Held) readRaw([]byte) (int, error) { return 0, io.EOF }

var _ socket = (*Held)(nil)

// closeNotify sends TLS's close_notify (RFC 8446 6.1) at the end of a
// response, as net/http does when it closes a TLS connection: one try.
func (h *Held) closeNotify() {
	if h.tc != nil {
		h.tc.CloseWrite()
	}
}

// flush writes what waits, when epoll says the socket can take more, and
// then asks the feed for what came meanwhile. The wait for a slow client
// starts again with any progress, as a write deadline set before each
// write would.
func (h *Held) flush() {
	n, err := writeFD(h.fd, h.pending)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil {
		h.end()
		return
	}
	if h.pending = h.pending[n:]; len(h.pending) > 0 {
		h.since.Store(h.l.now)
		return
	}
	h.pending = nil
	h.since.Store(0)
	h.armOut(false)
	if h.last {
		h.closeNotify()
		h.end()
		return
	}
	h.pump()
}

// armOut asks epoll to say when the socket can take more, or stops asking.
func (h *Held) armOut(on bool) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: heldEvent(h.slot)}
	if on {
		ev.Events |= unix.EPOLLOUT
	}
	unix.EpollCtl(h.l.epfd, unix.EPOLL_CTL_MOD, h.fd, &ev)
}

// event handles epoll's news of the socket: it can take more, or the
// client sent something, closed its side, or reset it.
func (h *Held) event(events uint32) {
	if events&unix.EPOLLOUT != 0 && len(h.pending) > 0 {
		h.flush()
	}
	if h.done || events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) == 0 {
		return
	}
	n, err := readFD(h.fd, h.l.buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if n <= 0 || events&(unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) != 0 {
		h.end() // a client that closes its side of an XMLHttpRequest has aborted it
	}
}

// end closes the socket and tells the feed, once.
func (h *Held) end() {
	if h.done {
		return
	}
	l := h.l
	h.done = true
	h.pending = nil
	h.since.Store(0)
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, h.fd, nil)
	unix.Close(h.fd)
	if h.tc != nil {
		h.tc.NetConn().(*Stream).c = nil
	}
	l.held[h.slot] = nil
	l.freeHeld = append(l.freeHeld, h.slot)
	l.holding.Add(-1)
	h.feed.Gone()
	l.checkDrained()
}

// endHeld closes every socket the loop holds, when it stops.
func (l *loop) endHeld() {
	for _, h := range l.held {
		if h != nil {
			h.end()
		}
	}
}

package netpoll

import (
	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// deadline is when the connection next needs attention. The wheel entry is
// re-bucketed lazily: receiving a message only updates c.seen, and expire
// reschedules an entry that fires early.
func (c *conn) deadline() int64 {
	if c.flags&(fClosing|fHandshake) != 0 {
		return c.mark
	}
	pinged := c.flags&fPinged != 0
	since := c.seen
	if pinged {
		since = c.mark
	}
	d := since + int64(c.l.cfg.Policy.Silence(pinged))
	if c.backlogged() {
		d = min(d, c.writeDeadline())
	}
	return d
}

// backlogged reports whether the connection has bytes the socket has not taken.
func (c *conn) backlogged() bool { return c.x != nil && c.x.backlog.Len() > 0 }

// writeDeadline is when a blocked connection becomes a slow consumer: the
// write timeout after its backlog last made progress.
func (c *conn) writeDeadline() int64 { return c.x.blocked + int64(c.l.cfg.Policy.WriteTimeout) }

// scheduleBefore moves the wheel entry earlier when at is sooner.
func (c *conn) scheduleBefore(at int64) {
	if cur, ok := c.l.wheel.Scheduled(c.slot); !ok || at < cur {
		c.l.wheel.Schedule(c.slot, at)
	}
}

// expire is called by the wheel when a connection's entry is due.
func (l *loop) expire(slot int32) {
	c := l.conns[slot]
	if c == nil || c.flags&fDead != 0 {
		return
	}
	if d := c.deadline(); d > l.now {
		l.wheel.Schedule(slot, d)
		return
	}
	switch {
	case c.flags&fHandshake != 0:
		c.timedOut()
	case c.flags&fClosing != 0:
		l.kill(c, connstats.Server) // the close handshake ran out; the close's cause stands
	case c.backlogged() && c.writeDeadline() <= l.now:
		l.log.Warn("slow consumer closed: writes blocked", "backlog", c.x.backlog.Len(), "for", l.cfg.Policy.WriteTimeout)
		l.kill(c, connstats.Slow)
	case c.flags&fPinged != 0:
		c.why.Set(connstats.Timeout)
		c.Close(transport.PongTimeoutCode, transport.PongTimeoutReason)
	default:
		c.call().Ping()
		c.flags |= fPinged
		c.mark = l.now
		l.wheel.Schedule(slot, c.deadline())
	}
}

// kill marks c for release at the end of this loop turn; nothing is freed
// while a hub delivery may still be iterating over c. It is counted under
// the first cause recorded, why if there was none.
func (l *loop) kill(c *conn, why connstats.Reason) {
	if c.flags&fDead != 0 {
		return
	}
	c.why.Set(why)
	c.forget()
	c.flags |= fDead | fClosing
	l.dying = append(l.dying, c)
	if s := l.cfg.Stats; s != nil && c.flags&fHandshake == 0 {
		s.Ended(c.why.Reason())
	}
}

// reap leaves the channels of closing connections and releases dead ones.
func (l *loop) reap() {
	for i, c := range l.dying {
		l.dying[i] = nil
		if c.flags&fHandshake == 0 {
			c.call().Closed()
		}
		if c.flags&(fDead|fReleased) == fDead {
			l.release(c)
		}
	}
	l.dying = l.dying[:0]
	l.checkDrained()
}

// release closes the socket and returns every buffer the connection held.
func (l *loop) release(c *conn) {
	if c.flags&fTLS != 0 {
		l.releaseTLS(c)
	}
	c.flags |= fReleased
	l.wheel.Cancel(c.slot)
	if c.flags&fHandshake != 0 {
		unix.Close(int(c.fd)) // never admitted, nor counted
		l.decided()
	} else {
		l.closeSocket(int(c.fd))
		l.count.Add(-1)
	}
	l.conns[c.slot] = nil
	l.free = append(l.free, c.slot)
	if x := c.x; x != nil {
		ws.Discard(&c.ws, &x.frag)
		x.pending = x.pending[:0]
		c.drop(0)
		c.x = nil
		putExtra(x)
	}
}

// closeSocket tells Config.OnClose, then closes a connection's socket.
func (l *loop) closeSocket(fd int) {
	if f := l.cfg.OnClose; f != nil {
		f(fd)
	}
	unix.Close(fd)
}

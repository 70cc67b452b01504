package netpoll

import (
	"github.com/roostproject/roost/internal/connstats"
	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// deadline is when the connection next needs attention. The wheel entry is
// re-bucketed lazily: receiving a message only updates c.seen, and expire
// reschedules an entry that fires early.
func (c *conn) deadline() int64 {
	cfg := c.l.cfg
	if c.flags&fClosing != 0 {
		return c.mark
	}
	d := c.seen + int64(cfg.ActivityTimeout+cfg.serverPingGrace())
	if c.flags&fPinged != 0 {
		d = c.mark + int64(cfg.PongWait)
	}
	if c.x != nil && len(c.x.backlog) > 0 {
		d = min(d, c.x.blocked+int64(cfg.WriteTimeout))
	}
	return d
}

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
	case c.flags&fClosing != 0:
		l.kill(c, connstats.Timeout)
	case c.x != nil && len(c.x.backlog) > 0 && c.x.blocked+int64(l.cfg.WriteTimeout) <= l.now:
		l.log.Warn("slow consumer closed: writes blocked", "backlog", len(c.x.backlog), "for", l.cfg.WriteTimeout)
		l.kill(c, connstats.Slow)
	case c.flags&fPinged != 0:
		c.Close(ws.CloseCode(pusher.PongTimeout), "pong not received")
	default:
		c.call().Ping()
		c.flags |= fPinged
		c.mark = l.now
		l.wheel.Schedule(slot, c.deadline())
	}
}

// kill marks c for release at the end of this loop turn; nothing is freed
// while a hub delivery may still be iterating over c.
func (l *loop) kill(c *conn, why connstats.Reason) {
	if c.flags&fDead != 0 {
		return
	}
	c.flags |= fDead | fClosing
	l.dying = append(l.dying, c)
	if c.flags&fSlow != 0 {
		why = connstats.Slow
	}
	if s := l.cfg.Stats; s != nil {
		s.Ended(why)
	}
}

// reap leaves the channels of closing connections and releases dead ones.
func (l *loop) reap() {
	for i, c := range l.dying {
		l.dying[i] = nil
		c.call().Closed()
		if c.flags&(fDead|fReleased) == fDead {
			l.release(c)
		}
	}
	l.dying = l.dying[:0]
	l.checkDrained()
}

// release closes the socket and returns every buffer the connection held.
func (l *loop) release(c *conn) {
	c.flags |= fReleased
	l.wheel.Cancel(c.slot)
	l.closeSocket(int(c.fd))
	l.conns[c.slot] = nil
	l.free = append(l.free, c.slot)
	l.count.Add(-1)
	if x := c.x; x != nil {
		ws.Discard(&c.ws, &x.frag)
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

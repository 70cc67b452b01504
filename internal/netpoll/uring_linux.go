package netpoll

import (
	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
)

// With Config.Uring a loop writes a publish to its plain subscribers with
// one io_uring_enter instead of one write(2) each: while the hub flushes a
// delivery, each frame becomes a send in the loop's ring, and when the
// flush is over the ring is submitted and its completions read as the
// write(2) results would have been (conn.wrote). Epoll still says when a
// socket is readable or writable, and everything else is written at once
// as without a ring.
//
// Order per connection: a connection with a backlog is never given a ring
// send (its frame joins the backlog, as it would anyway), and a connection
// with a send in the ring that is written again first waits for the batch
// to be submitted.

// uring is a loop's batch of sends.
type uring struct {
	r    *ring
	on   bool       // a delivery is being flushed: plain frames go to the ring
	pend []ringSend // by tag, the sends prepared since the last submit
	done func(tag uint64, res int32)
}

// ringSend is a send in the ring; it keeps the frame alive until submitted.
type ringSend struct {
	c     *conn
	frame []byte
}

// UringWorks reports whether this kernel lets the process set up the ring
// Config.Uring needs: io_uring can be disabled (kernel.io_uring_disabled)
// or filtered out (the default seccomp profile of container runtimes).
func UringWorks() bool {
	r, err := newRing()
	if err != nil {
		return false
	}
	r.close()
	return true
}

// newUring sets up a loop's ring.
func (l *loop) newUring() error {
	r, err := newRing()
	if err != nil {
		return err
	}
	l.uring = &uring{r: r, done: l.sent}
	return nil
}

// closeUring releases the loop's ring, if it has one.
func (l *loop) closeUring() {
	if l.uring != nil {
		l.uring.r.close()
		l.uring = nil
	}
}

// deliver writes d to the loop's subscribers, batched when it has a ring.
func (l *loop) deliver(d hub.Delivery) {
	u := l.uring
	if u == nil {
		l.cfg.Hub.Flush(d)
		return
	}
	u.on = true
	l.cfg.Hub.Flush(d)
	u.on = false
	l.submit()
}

// ringWrite puts a plain connection's frame in the ring, and reports
// whether it did.
func (c *conn) ringWrite(frame []byte) bool {
	l := c.l
	if l.uring != nil && c.flags&fRing != 0 {
		l.submit() // the earlier frame goes first
	}
	u := l.uring
	if u == nil || !u.on || c.flags&fDead != 0 || c.backlogged() {
		return false
	}
	if u.r.full() {
		l.submit()
		if u = l.uring; u == nil {
			return false
		}
	}
	u.r.send(c.fd, frame, uint64(len(u.pend)))
	u.pend = append(u.pend, ringSend{c: c, frame: frame})
	c.flags |= fRing
	return true
}

// submit sends what the ring holds. Should the ring fail, the loop logs it
// and writes with write(2) from then on; a connection whose send's fate is
// unknown is closed, since a frame of its stream may be lost.
func (l *loop) submit() {
	u := l.uring
	if len(u.pend) == 0 {
		return
	}
	if err := u.r.submit(u.done); err != nil {
		l.log.Error("io_uring failed; the loop writes with write(2) from now on", "err", err)
		l.closeUring()
	}
	for i, s := range u.pend {
		if s.c.flags&fRing != 0 {
			s.c.flags &^= fRing
			l.kill(s.c, connstats.Error)
		}
		u.pend[i] = ringSend{}
	}
	u.pend = u.pend[:0]
}

// sent takes one send's completion as write(2)'s result would be taken.
func (l *loop) sent(tag uint64, res int32) {
	s := l.uring.pend[tag]
	c := s.c
	c.flags &^= fRing
	if c.flags&fDead != 0 {
		return
	}
	if res < 0 {
		c.wrote(s.frame, 0, unix.Errno(-res))
		return
	}
	c.wrote(s.frame, int(res), nil)
}

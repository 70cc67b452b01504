package netpoll

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/transport"
)

// The node-wide budget (transport.Budget) bounds the bytes in every
// connection's backlog together. Each loop keeps its own figures (queued,
// and sheddable: what connections not yet shed hold) and adds its changes
// to the budget's one atomic total, only when a backlog changes. A loop
// that queues past the budget sheds its largest backlogs until the total
// fits again: each shed one keeps only the rest of the frame already on the
// wire and gets the 4100 close after it, so the total never passes the
// budget by more than that much per shed connection. A loop sees only its
// own connections: largest first holds within a loop, and a loop that has
// nothing left to shed sheds the connection that is queuing.

// grow appends b to the connection's backlog and counts it.
func (c *conn) grow(b []byte) {
	x := c.ext()
	x.backlog = append(x.backlog, b...)
	c.account(len(b))
}

// account counts n more bytes (negative: fewer) in c's backlog.
func (c *conn) account(n int) {
	l := c.l
	l.queued += int64(n)
	if c.flags&(fShed|fDead) == 0 {
		l.sheddable += int64(n)
	}
	l.cfg.Policy.Budget.Add(n)
}

// forget stops counting c's backlog as something to shed.
func (c *conn) forget() {
	if c.flags&(fShed|fDead) == 0 && c.x != nil {
		c.l.sheddable -= int64(len(c.x.backlog))
	}
}

// drop empties c's backlog, keeping its first keep bytes.
func (c *conn) drop(keep int) {
	x := c.x
	if x == nil || len(x.backlog) <= keep {
		return
	}
	c.account(keep - len(x.backlog))
	x.backlog = x.backlog[:keep]
}

// fit sheds the loop's largest backlogs while the node is over its budget.
func (l *loop) fit() {
	for !l.cfg.Policy.Budget.Fits(0) && l.sheddable > 0 {
		c := l.largest()
		if c == nil {
			return
		}
		c.shed()
	}
}

// largest returns the loop's connection with the largest backlog not yet shed.
func (l *loop) largest() *conn {
	var top *conn
	for _, c := range l.conns {
		if c == nil || c.x == nil || c.flags&(fShed|fDead|fHandshake) != 0 {
			continue
		}
		if top == nil || len(c.x.backlog) > len(top.x.backlog) {
			top = c
		}
	}
	return top
}

// shed closes c with 4100 for the budget. A plain connection keeps the
// rest of the frame on the wire, then the close frame; a TLS one cannot
// lose records without breaking its stream, so it is closed at once.
func (c *conn) shed() {
	l := c.l
	l.log.Warn("slow consumer closed: node backlog budget", "backlog", len(c.x.backlog), "budget", l.cfg.Policy.Budget.Limit())
	c.forget()
	c.flags |= fShed
	c.why.Set(connstats.Slow)
	if c.flags&fTLS != 0 {
		c.drop(0)
		l.kill(c, connstats.Slow)
		return
	}
	c.drop(c.x.edge)
	c.grow(transport.SlowClose)
	if c.flags&fClosing == 0 {
		c.closing()
	}
}

// advance moves the frame edge of a plain connection's backlog past n
// bytes written from its head: the backlog holds whole frames after edge.
func (x *extra) advance(n int) {
	for x.edge < n {
		x.edge += frameLen(x.backlog[x.edge:])
	}
	x.edge -= n
}

// frameLen returns the length of the unmasked WebSocket frame b starts with.
func frameLen(b []byte) int {
	switch n := int(b[1] & 0x7f); n {
	case 126:
		return 4 + int(binary.BigEndian.Uint16(b[2:]))
	case 127:
		return 10 + int(binary.BigEndian.Uint64(b[2:]))
	default:
		return 2 + n
	}
}

// capSend caps the kernel's send buffer of a connection's socket
// (Policy.SendBuffer), so that a client that does not read parks at most
// that much there; an idle socket holds nothing in it.
func (l *loop) capSend(fd int) {
	if n := l.cfg.Policy.SendBuffer; n > 0 {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, n)
	}
}

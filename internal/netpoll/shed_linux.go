package netpoll

import (
	"cmp"
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/transport"
)

// The node-wide budget (transport.Budget) bounds the memory of every
// connection's buffers together: a backlog counts the chunks it holds
// (backlog_linux.go), and an incomplete frame or fragmented message read
// from the client the capacity of its buffer. Each loop
// keeps its own figures (queued, and sheddable: what connections not yet
// shed hold) and adds its changes to the budget's one atomic total, only
// when a backlog changes. A loop that queues past the budget sheds its
// largest backlogs, in one pass, until the total is a slack below the
// budget again, so that it does not scan its connections for every frame
// while at the budget. Each shed one keeps only the rest of the frame
// already on the wire, copied out so that its old backlog is freed at once,
// and gets the 4100 close after it, so the total never passes the budget
// by more than that much per shed connection. A loop sees only its own
// connections: largest first holds within a loop, and a loop that has
// nothing left to shed sheds the connection that is queuing.

// grow appends b to the connection's backlog and counts it.
func (c *conn) grow(b []byte) {
	c.ext().backlog.push(b)
	c.recount()
}

// held is what x's buffers hold in memory: the backlog's chunks, and the
// capacity of an incomplete frame's or a fragmented message's buffer while
// it is in use (an empty one goes back to the pool with x).
func (x *extra) held() int {
	n := x.backlog.held()
	if len(x.pending) > 0 {
		n += cap(x.pending)
	}
	return n + cap(x.frag)
}

// recount brings the loop's and the budget's figures to what c's backlog
// holds now.
func (c *conn) recount() {
	x := c.x
	h := x.held()
	c.account(h - x.counted)
	x.counted = h
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
		c.l.sheddable -= int64(c.x.counted)
	}
}

// drop cuts c's backlog to its first keep bytes, giving the chunks of the
// rest back now rather than when c is released.
func (c *conn) drop(keep int) {
	if x := c.x; x != nil {
		x.backlog.truncate(keep)
		c.recount()
	}
}

// shedSlack is the fraction of the budget a loop that sheds frees below it,
// so that the next frames queued do not send it shedding again at once.
const shedSlack = 16

// fit sheds the loop's largest backlogs while the node is over its budget.
func (l *loop) fit() {
	b := l.cfg.Policy.Budget
	if b.Fits(0) || l.sheddable <= 0 {
		return
	}
	slack := int(b.Limit() / shedSlack)
	n, freed := 0, l.sheddable
	for _, c := range l.largest() {
		if b.Fits(slack) {
			break
		}
		c.shed()
		n++
	}
	if n > 0 {
		l.log.Warn("slow consumers closed: node backlog budget", "closed", n, "bytes", freed-l.sheddable, "budget", b.Limit())
	}
}

// largest returns the loop's connections with a backlog not yet shed,
// largest first, in a slice of the loop's reused until the next call.
func (l *loop) largest() []*conn {
	top := l.shedding[:0]
	for _, c := range l.conns {
		if c == nil || c.x == nil || c.x.counted == 0 || c.flags&(fShed|fDead|fHandshake) != 0 {
			continue
		}
		top = append(top, c)
	}
	slices.SortFunc(top, func(a, b *conn) int {
		if d := cmp.Compare(b.x.counted, a.x.counted); d != 0 {
			return d
		}
		return cmp.Compare(b.x.backlog.Len(), a.x.backlog.Len())
	})
	l.shedding = top
	return top
}

// shed closes c with 4100 for the budget. A plain connection keeps the
// rest of the frame on the wire, then the close frame; a TLS one cannot
// lose records without breaking its stream, and one in the middle of
// sending a frame would keep its buffer while it waits for the close, so
// they are closed at once.
func (c *conn) shed() {
	l := c.l
	c.forget()
	c.flags |= fShed
	c.why.Set(connstats.Slow)
	if c.flags&fTLS != 0 || len(c.x.pending) > 0 || c.x.frag != nil {
		c.x.pending = nil // the decoder's input still, if c is being decoded
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
	var head [10]byte
	for x.edge < n {
		x.backlog.at(x.edge, head[:])
		x.edge += frameLen(head[:])
	}
	x.edge -= n
}

// frameLen returns the length of the unmasked WebSocket frame whose header
// b starts with.
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

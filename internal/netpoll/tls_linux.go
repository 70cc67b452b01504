package netpoll

import (
	"crypto/tls"
	"errors"
	"io"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/tlsidle"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// A TLS connection on a loop keeps its tls.Conn, which runs over the
// connection's Stream: crypto/tls decrypts what the loop reads and encrypts
// what it writes, and the loop moves the records (docs/design.md, "TLS on
// the epoll transport"). Records that crypto/tls has read but not yet
// returned are invisible to epoll, so a TLS connection is read until
// crypto/tls reports that the socket is empty, or again on the next turn
// (fMore) when the loop's buffer fills first.

// maxPlaintext is the most one TLS record carries (RFC 8446 5.1), so the
// most one tls.Conn.Read returns.
const maxPlaintext = 16 << 10

var _ socket = (*conn)(nil)

// AddTLS takes over fd, the duplicate (from Dup) of the socket under tc, a
// TLS server connection over a Stream that has completed its handshake and
// the WebSocket upgrade. buffered are the bytes already decrypted past the
// upgrade request; st is the decoder state the handshake left (ws.Upgrade).
// The caller must not use tc afterwards. What tc keeps only for its
// handshake and for calls the loop never makes is released here, while the
// caller's goroutine still owns tc.
func (p *Poller) AddTLS(fd int, tc *tls.Conn, buffered []byte, app *config.App, st ws.State) {
	tc.NetConn().(*Stream).detach()
	tlsidle.Forget(tc)
	l := p.loops[p.next.Add(1)%uint32(len(p.loops))]
	l.post(op{kind: opAdd, add: &addReq{fd: fd, buffered: buffered, app: app, ws: st, tls: tc}})
}

// attachTLS makes c the owner of tc's Stream.
func (l *loop) attachTLS(c *conn, tc *tls.Conn) {
	for int(c.slot) >= len(l.tlsConns) {
		l.tlsConns = append(l.tlsConns, nil)
	}
	l.tlsConns[c.slot] = tc
	tc.NetConn().(*Stream).c = c
	c.flags |= fTLS
}

// tls returns c's TLS connection.
func (c *conn) tls() *tls.Conn { return c.l.tlsConns[c.slot] }

// readRaw reads the socket for crypto/tls (Stream.Read).
func (c *conn) readRaw(p []byte) (int, error) {
	n, err := readFD(int(c.fd), p)
	switch {
	case err == unix.EAGAIN || err == unix.EINTR:
		return 0, errWouldBlock
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	c.seen = c.l.now
	c.flags &^= fPinged
	c.l.local.bytesIn += int64(n)
	return n, nil
}

// readTLS decrypts what the socket has into the loop's shared buffer and
// decodes it.
func (c *conn) readTLS() {
	l, tc := c.l, c.tls()
	n := 0
	var err error
	for err == nil && len(l.buf)-n >= maxPlaintext {
		var m int
		m, err = tc.Read(l.buf[n:])
		n += m
	}
	c.sendSlowClose()
	if n > 0 && c.flags&fDead == 0 {
		c.decode(l.buf[:n])
	}
	switch {
	case c.flags&fDead != 0:
	case err == nil: // the buffer filled first
		c.moreTLS()
	case errors.Is(err, errWouldBlock):
		tlsidle.Shrink(tc) // an idle connection keeps no read buffer
	case errors.Is(err, io.EOF), errors.As(err, new(unix.Errno)):
		l.kill(c, connstats.Client) // closed, or close_notify
	default:
		l.log.Debug("tls read failed", "err", err)
		l.kill(c, connstats.Error) // a record that does not decrypt, or an alert
	}
}

// moreTLS reads c again: now, or on the next turn if its input is
// deferred.
func (c *conn) moreTLS() {
	switch {
	case c.flags&fDead != 0:
	case c.flags&fDeferred != 0:
		c.flags |= fMore
	default:
		c.flags |= fMore | fDeferred
		c.l.deferred = append(c.l.deferred, c)
	}
}

// writeTLS encrypts a frame; the records go to writeRaw.
func (c *conn) writeTLS(frame []byte) {
	c.tls().Write(frame)
	c.sendSlowClose()
}

// sendSlowClose encrypts the close frame of a slow consumer, which writeRaw
// could not do from inside crypto/tls's own write.
func (c *conn) sendSlowClose() {
	if c.flags&fSlowTLS == 0 {
		return
	}
	c.flags &^= fSlowTLS
	c.tls().Write(transport.SlowClose)
}

// releaseTLS sends close_notify when the socket can take it at once, and
// forgets c's TLS connection.
func (l *loop) releaseTLS(c *conn) {
	tc := c.tls()
	l.tlsConns[c.slot] = nil
	if !c.backlogged() && c.why.Reason() != connstats.Error {
		tc.CloseWrite()
	}
	tc.NetConn().(*Stream).c = nil
}

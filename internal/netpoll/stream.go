package netpoll

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// Stream is the connection under a TLS server connection (tls.Server)
// that an epoll loop may take over. Until then it is the accepted
// connection, blocking, in Go's poller: the TLS handshake and the HTTP
// upgrade run over it on net/http's goroutine. Once Poller.AddTLS hands the
// tls.Conn to a loop, the Stream is a non-blocking view of the loop's
// descriptor: a read that would block returns a timeout error, which
// crypto/tls treats as temporary and retries on the next call, and a write
// goes to the socket or the connection's backlog and never fails. crypto/tls
// keeps doing all the cryptography; the loop only moves its records.
type Stream struct {
	nc net.Conn // the accepted connection; nil once a loop owns the socket
	c  socket   // the loop's connection once it owns the socket; that loop's goroutine only
}

// socket is a loop's side of a connection: raw reads and writes of its
// descriptor, without blocking.
type socket interface {
	readRaw(p []byte) (int, error)
	writeRaw(p []byte)
}

// NewStream wraps an accepted connection.
func NewStream(nc net.Conn) *Stream { return &Stream{nc: nc} }

// errWouldBlock is a read of an empty non-blocking socket. It is a
// temporary net.Error, so that crypto/tls keeps its state and returns it.
var errWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "netpoll: read would block" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

// Read implements net.Conn.
func (s *Stream) Read(p []byte) (int, error) {
	if s.c != nil {
		return s.c.readRaw(p)
	}
	if s.nc == nil {
		return 0, net.ErrClosed
	}
	return s.nc.Read(p)
}

// Write implements net.Conn. On a loop it takes all of p: what the socket
// does not take waits in the connection's backlog (docs/design.md,
// "Writing"), and a failed socket ends the connection on the loop.
func (s *Stream) Write(p []byte) (int, error) {
	if s.c != nil {
		s.c.writeRaw(p)
		return len(p), nil
	}
	if s.nc == nil {
		return 0, net.ErrClosed
	}
	return s.nc.Write(p)
}

// Close implements net.Conn: it closes the accepted connection; on a loop
// it does nothing, the loop closes the socket.
func (s *Stream) Close() error {
	if s.nc == nil {
		return nil
	}
	return s.nc.Close()
}

// detach closes the accepted connection, whose socket a loop owns through
// its duplicate from Dup, so that Go's poller forgets it.
func (s *Stream) detach() {
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
}

// LocalAddr implements net.Conn; nil once a loop owns the socket.
func (s *Stream) LocalAddr() net.Addr {
	if s.nc == nil {
		return nil
	}
	return s.nc.LocalAddr()
}

// RemoteAddr implements net.Conn; nil once a loop owns the socket.
func (s *Stream) RemoteAddr() net.Addr {
	if s.nc == nil {
		return nil
	}
	return s.nc.RemoteAddr()
}

// SetDeadline implements net.Conn. A loop keeps its own deadlines on its
// timing wheel, so on a loop it does nothing.
func (s *Stream) SetDeadline(t time.Time) error {
	if s.nc == nil {
		return nil
	}
	return s.nc.SetDeadline(t)
}

// SetReadDeadline implements net.Conn, as SetDeadline.
func (s *Stream) SetReadDeadline(t time.Time) error {
	if s.nc == nil {
		return nil
	}
	return s.nc.SetReadDeadline(t)
}

// SetWriteDeadline implements net.Conn, as SetDeadline.
func (s *Stream) SetWriteDeadline(t time.Time) error {
	if s.nc == nil {
		return nil
	}
	return s.nc.SetWriteDeadline(t)
}

// SyscallConn lets Dup reach the accepted socket (syscall.Conn).
func (s *Stream) SyscallConn() (syscall.RawConn, error) {
	sc, ok := s.nc.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// NetConn returns the accepted connection, nil once a loop owns the socket.
func (s *Stream) NetConn() net.Conn { return s.nc }

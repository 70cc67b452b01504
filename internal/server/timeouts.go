package server

import (
	"errors"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/proxyproto"
)

// timeoutListener hands out connections that count a read deadline
// passing before their first request was read: the handshake timeout
// (ReadHeaderTimeout, or a TLS handshake that never finished) closing a
// silent or slowloris client.
type timeoutListener struct {
	net.Listener
	timeouts *atomic.Int64
}

// Accept implements net.Listener.
func (l timeoutListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &firstRequest{Conn: c, timeouts: l.timeouts}, nil
}

// firstRequest is an accepted connection until its first request has been
// read; then it is a plain net.Conn.
type firstRequest struct {
	net.Conn
	timeouts *atomic.Int64
	read     atomic.Bool // the first request was read (or the count taken)
}

// Read implements net.Conn, counting a deadline that passes while the
// first request is awaited.
func (c *firstRequest) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && c.read.CompareAndSwap(false, true) {
		c.timeouts.Add(1)
	}
	return n, err
}

// SyscallConn lets netpoll.Dup reach the socket (syscall.Conn).
func (c *firstRequest) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// CloseWrite shuts the socket's write side where it can (the HTTP API
// does before it discards a refused body).
func (c *firstRequest) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}

// connState is the HTTP server's ConnState hook: once a connection leaves
// the new state, its first request has been read and its deadlines are no
// longer the handshake's.
func connState(c net.Conn, s http.ConnState) {
	if s == http.StateNew {
		return
	}
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
		c = tc.NetConn()
	}
	if st, ok := c.(*netpoll.Stream); ok { // under TLS, until a loop owns the socket
		c = st.NetConn()
	}
	if pc, ok := c.(*proxyproto.Conn); ok { // under TLS, with the client's address
		c = pc.NetConn()
	}
	if fr, ok := c.(*firstRequest); ok {
		fr.read.Store(true)
	}
}

package server

import (
	"crypto/tls"
	"net"
	"net/http"

	"github.com/roostproject/roost/internal/fallback"
	"github.com/roostproject/roost/internal/netpoll"
)

// fallbackLoop holds xhr_streaming streams on the epoll loops once their
// response has started, as the loops hold upgraded WebSockets, over TLS too
// when the node serves it itself (a netpoll.Stream under the tls.Conn).
type fallbackLoop struct{ s *Server }

var _ fallback.Loop = fallbackLoop{}

// Socket implements fallback.Loop.
func (l fallbackLoop) Socket(r *http.Request) int {
	nc := socketConn(r)
	if _, ok := nc.(*netpoll.Stream); nc == nil || r.TLS != nil && !ok {
		return -1
	}
	fd, err := netpoll.Dup(nc)
	if err != nil {
		l.s.limitedLog.Debug("xhr_streaming stays with net/http: cannot take its socket", "err", err)
		return -1
	}
	return fd
}

// Hold implements fallback.Loop.
func (l fallbackLoop) Hold(fd int, nc net.Conn, f fallback.Feed) fallback.Stream {
	if tc, ok := nc.(*tls.Conn); ok {
		return l.s.poller.HoldTLS(fd, tc, f) // the TLS state moves with the socket
	}
	nc.Close() // the duplicate keeps the socket open
	return l.s.poller.Hold(fd, f)
}

// Drop implements fallback.Loop.
func (fallbackLoop) Drop(fd int) { netpoll.CloseDup(fd) }

// fallbackLoopOf is the loop that holds the node's streams: nil, net/http,
// on the portable transport.
func (s *Server) fallbackLoopOf() fallback.Loop {
	if s.poller == nil {
		return nil
	}
	return fallbackLoop{s}
}

package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/netpoll"
)

// On the epoll transport without TLS the loops accept connections and read
// their request heads themselves (docs/design.md, "Accepting on the
// loops"). A plain WebSocket handshake that the admission door admits
// without waiting is upgraded on the loop, and one it refuses before the
// upgrade is answered there; every other request goes to net/http with
// the bytes already read, and is answered there exactly as before.

var _ netpoll.Handshaker = (*Server)(nil)

// acceptOnLoops makes the epoll loops accept on ln and returns the listener
// net/http is to serve: the connections the loops pass on. It returns ln
// itself where the loops cannot accept (TLS, the portable transport, a
// listener without a socket), reading PROXY headers if it is to (proxied).
func (s *Server) acceptOnLoops(ln net.Listener) net.Listener {
	tl, ok := ln.(timeoutListener)
	if !ok || s.cfg.TLS.Enabled() {
		return ln // under TLS, proxied below it
	}
	if s.poller == nil {
		return s.proxied(ln)
	}
	l := s.cfg.Limits
	s.handoff = newHandoff(tl, s.poller) // before the loops may pass anything on
	// A head larger than net/http reads (MaxHeaderBytes and 4 KB for the
	// request line) goes to net/http, which answers 431.
	if err := s.poller.Listen(tl.Listener, s, l.MaxHeaderBytes+4096, l.HandshakeTimeout); err != nil {
		s.log.Warn("epoll loops cannot accept; net/http accepts", "err", err)
		s.poller.Unlisten()
		return s.proxied(ln)
	}
	return s.handoff
}

// Handshake implements netpoll.Handshaker: it upgrades a plain WebSocket
// handshake (readLoopRequest, plainHost, ws.Head.Check) that the admission
// door admits without waiting, answers one it refuses before the upgrade
// as net/http would (without the descriptor a hand-over costs, which a
// node out of them does not have), and hands over everything else.
// Extensions are negotiated as ws.Upgrade negotiates them (ws.Negotiate).
func (s *Server) Handshake(fd int, head []byte, from netip.Addr) (netpoll.Accepted, []byte) {
	var r loopRequest
	if !readLoopRequest(head, &r) || !plainHost(r.values[fieldHost]) {
		return netpoll.Accepted{}, nil
	}
	h := r.wsHead()
	key, herr := h.Check()
	if herr != nil {
		return netpoll.Accepted{}, nil
	}
	d := s.door.Admit(context.Background(), admission.Request{Transport: admission.Epoll, AppKey: r.appKey,
		Query: r.query, Origin: r.values[fieldOrigin], Client: s.proxies.client(from, r.forwarded(s.proxies.header)), Inline: true})
	switch d.Kind {
	case admission.RefuseHTTP:
		return netpoll.Accepted{}, httpAnswer(&d)
	case admission.Admit:
		s.fds.put(fd, d.Ticket)
		up := netpoll.Accepted{App: d.App, Key: key}
		up.Extensions, up.WS = h.Negotiate(upgradeOptions(d.App))
		return up, nil
	}
	return netpoll.Accepted{}, nil
}

// plainHost accepts a host[:port] of letters, digits and . - : [ ] _.
func plainHost(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range []byte(h) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-:[]_", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// Handoff implements netpoll.Handshaker: net/http serves c.
func (s *Server) Handoff(c net.Conn) { s.handoff.push(c) }

// HandshakeTimedOut implements netpoll.Handshaker.
func (s *Server) HandshakeTimedOut() { s.timeouts.Add(1) }

// handoff is the listener net/http serves when the epoll loops accept: it
// hands out the connections the loops pass on, each counting a handshake
// timeout like any accepted connection (firstRequest).
type handoff struct {
	ln       timeoutListener // the bound socket; the loops accept on it
	poller   *netpoll.Poller
	timeouts *atomic.Int64

	passed atomic.Int64 // connections handed to net/http so far

	mu     sync.Mutex // guards queue and closed
	queue  []*firstRequest
	closed bool
	wake   chan struct{}
	once   sync.Once
}

func newHandoff(ln timeoutListener, p *netpoll.Poller) *handoff {
	return &handoff{ln: ln, poller: p, timeouts: ln.timeouts, wake: make(chan struct{}, 1)}
}

// push queues c for Accept; it never blocks.
func (h *handoff) push(c net.Conn) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		c.Close()
		return
	}
	h.queue = append(h.queue, &firstRequest{Conn: c, timeouts: h.timeouts})
	h.passed.Add(1)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Accept implements net.Listener.
func (h *handoff) Accept() (net.Conn, error) {
	for {
		h.mu.Lock()
		if len(h.queue) > 0 {
			c := h.queue[0]
			h.queue[0] = nil
			h.queue = h.queue[1:]
			h.mu.Unlock()
			return c, nil
		}
		closed := h.closed
		h.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		<-h.wake
	}
}

// Close implements net.Listener: the loops stop accepting, the socket is
// closed, and connections not yet accepted are dropped.
func (h *handoff) Close() error {
	var err error
	h.once.Do(func() {
		h.poller.Unlisten()
		err = h.ln.Close()
		h.mu.Lock()
		h.closed = true
		for _, c := range h.queue {
			c.Close()
		}
		h.queue = nil
		h.mu.Unlock()
		close(h.wake)
	})
	return err
}

// Addr implements net.Listener.
func (h *handoff) Addr() net.Addr { return h.ln.Addr() }

// httpAnswer is d's refusal as bytes for a loop to send: the status,
// headers and body net/http sends for it.
func httpAnswer(d *admission.Decision) []byte {
	w := &recorder{header: http.Header{}}
	d.WriteHTTP(w)
	w.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	w.header.Set("Content-Length", strconv.Itoa(w.body.Len()))
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", w.status, http.StatusText(w.status))
	w.header.Write(&b)
	b.WriteString("\r\n")
	b.Write(w.body.Bytes())
	return b.Bytes()
}

// recorder is a ResponseWriter that keeps what is written.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) { r.status = status }

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

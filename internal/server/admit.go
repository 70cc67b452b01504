package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
)

// newGate builds the admission gate from the limits, deriving the defaults
// that depend on the machine: the connection cap from the file limit and
// the memory ceiling from the cgroup.
func newGate(l config.Limits) *admission.Gate {
	maxConns := l.MaxConnections
	if maxConns == 0 {
		maxConns = admission.FileLimitConnections(admission.FileLimit())
	}
	maxMem := uint64(l.MaxMemory)
	if maxMem == 0 {
		maxMem = admission.CgroupMemory()
	}
	return admission.New(admission.Config{
		MaxConnections: maxConns, MaxPerIP: l.MaxConnectionsPerIP,
		PerSecond: l.HandshakesPerSecond, PerSecondPerIP: l.HandshakesPerSecondPerIP,
		MaxMemory: maxMem, IPv6Prefix: l.IPv6Prefix,
	})
}

// retryAfter is the Retry-After of a 503: a rate refills within a second;
// a full node or a memory ceiling takes longer to clear.
func retryAfter(r admission.Reason) time.Duration {
	if r == admission.Rate || r == admission.IPRate {
		return time.Second
	}
	return 5 * time.Second
}

// admitHandshake claims a place for a WebSocket handshake, or answers 503
// with Retry-After and reports false. It runs before the upgrade, so a
// refused client never sees 101 Switching Protocols.
func (s *Server) admitHandshake(w http.ResponseWriter, r *http.Request) (admission.Ticket, bool) {
	t, why := s.gate.Admit(remoteIP(r), time.Now())
	if why == admission.Admitted {
		return t, true
	}
	s.overloaded(w, why)
	return t, false
}

// overloaded answers a handshake the node cannot take now with 503 and
// Retry-After, and closes the HTTP connection so its descriptor is free at
// once.
func (s *Server) overloaded(w http.ResponseWriter, why admission.Reason) {
	s.limitedLog.Warn("websocket handshake refused: over a limit", "reason", why.String())
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter(why)/time.Second)))
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("roost: over capacity (%s), retry later", why), http.StatusServiceUnavailable)
}

// forbidden answers a handshake whose Origin the app does not allow.
func (s *Server) forbidden(w http.ResponseWriter, origin string) {
	s.gate.Refuse(admission.Origin)
	s.limitedLog.Warn("websocket handshake refused: origin not allowed", "origin", origin)
	w.Header().Set("Connection", "close")
	http.Error(w, "roost: origin not allowed for this app", http.StatusForbidden)
}

// remoteIP is the address a request came from; the zero Addr if unknown.
func remoteIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// connKey keys the request context's net.Conn (see http.Server.ConnContext).
type connKey struct{}

// withConn stores the accepted connection in its requests' context, so the
// handshake can duplicate the socket before the upgrade.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// socketConn returns the connection under a request, below TLS if it is
// served over TLS, or nil.
func socketConn(r *http.Request) net.Conn {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return c
}

// tickets remembers the admission tickets that name a client address, of
// the sockets the epoll loops own, by descriptor, until the loop closes the
// socket. A ticket without an address (per-address caps off) is not kept:
// every socket a loop owns was admitted, so its release needs no record,
// and an idle connection costs no map entry.
type tickets struct {
	mu sync.Mutex
	m  map[int]admission.Ticket
}

func (t *tickets) put(fd int, tk admission.Ticket) {
	if !tk.Tracked() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[int]admission.Ticket)
	}
	t.m[fd] = tk
}

// take removes and returns fd's ticket: the zero Ticket if none was kept.
func (t *tickets) take(fd int) admission.Ticket {
	t.mu.Lock()
	defer t.mu.Unlock()
	tk := t.m[fd]
	delete(t.m, fd)
	return tk
}

// socketClosed gives back the place of a socket an epoll loop is closing.
func (s *Server) socketClosed(fd int) { s.gate.Release(s.fds.take(fd)) }

// handshakeBound is how many undecided handshakes the loops may hold: half
// the descriptors the connection cap leaves free at the file limit, so that
// refusals never take them all (netpoll.Config.MaxHandshakes); 0, no bound,
// without a file limit.
func handshakeBound() int {
	limit := admission.FileLimit()
	if admission.FileLimitConnections(limit) == 0 {
		return 0
	}
	return int(admission.FileLimitHeadroom(limit) / 2)
}

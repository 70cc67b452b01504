package server

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
)

// newDoor builds the admission door: the caps from the limits, the apps
// from the app store, and the app's connections (the figure its quota is
// held to) from appConnections.
func (s *Server) newDoor() *admission.Door {
	return admission.New(admission.Config{Caps: caps(s.cfg.Limits), Apps: s.apps,
		AppConnections: s.appConnections, Logger: s.limitedLog})
}

// appConnections returns how many connections the app holds now, the
// figure apps[].max_connections is held to: across the cluster
// (hub.AppConnections).
func (s *Server) appConnections(appID string) int { return s.hub.AppConnections(appID) }

// caps returns the door's caps for the limits, deriving the defaults that
// depend on the machine: the connection cap from the file limit and the
// memory ceiling from the cgroup.
func caps(l config.Limits) admission.Caps {
	maxConns := l.MaxConnections
	if maxConns == 0 {
		maxConns = admission.FileLimitConnections(admission.FileLimit())
	}
	return admission.Caps{
		MaxConnections: maxConns, MaxPerIP: l.MaxConnectionsPerIP,
		PerSecond: l.HandshakesPerSecond, PerSecondPerIP: l.HandshakesPerSecondPerIP,
		MaxMemory: memoryCeiling(l), IPv6Prefix: l.IPv6Prefix,
	}
}

// memoryCeiling is max_memory, or its default from the cgroup (0: none).
func memoryCeiling(l config.Limits) uint64 {
	if l.MaxMemory > 0 {
		return uint64(l.MaxMemory)
	}
	return admission.CgroupMemory()
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
func (s *Server) socketClosed(fd int) { s.door.Release(s.fds.take(fd)) }

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

package server

import (
	"net"

	"github.com/roostproject/roost/internal/fallback"
	"github.com/roostproject/roost/internal/route"
)

// fallbackRoute returns what forwards HTTP fallback requests to the node
// holding their session (package route); nil on a single node, and no
// WebSocket ever passes through it.
func (s *Server) fallbackRoute() fallback.Router {
	if s.cluster == nil {
		return nil
	}
	s.route = route.New(route.Config{Routes: s.cluster, Node: s.cluster.ID(), Logger: s.log})
	return s.route
}

// drainRoute ends the requests this node forwards, when it shuts down.
func (s *Server) drainRoute() {
	if s.route != nil {
		s.route.Drain()
	}
}

// advertise tells the route at which address the other nodes reach this
// one: cluster.advertise_url, else the listen address ln is bound to when
// it names a host. A wildcard address names none, and fallback sessions
// are then not forwarded.
func (s *Server) advertise(ln net.Listener) {
	if s.route == nil {
		return
	}
	if u := s.cfg.Cluster.AdvertiseURL; u != "" {
		s.route.Advertise(u)
		return
	}
	if u := advertiseURL(ln.Addr(), s.cfg.TLS.Enabled()); u != "" {
		s.route.Advertise(u)
		return
	}
	s.log.Warn("HTTP fallback sessions are not forwarded between nodes: addr is a wildcard; set cluster.advertise_url to this node's address as the others reach it",
		"addr", ln.Addr().String())
}

// advertiseURL derives a node's address from its listener's, "" when that
// is a wildcard.
func advertiseURL(a net.Addr, tls bool) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP == nil || tcp.IP.IsUnspecified() {
		return ""
	}
	scheme := "http://"
	if tls {
		scheme = "https://"
	}
	return scheme + tcp.String()
}

// closeRoute removes this node's session records, once its fallback
// sessions have ended.
func (s *Server) closeRoute() {
	if s.route != nil {
		s.route.Close()
	}
}

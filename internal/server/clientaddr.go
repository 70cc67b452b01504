package server

import (
	"errors"
	"net"
	"net/http"
	"net/netip"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/proxyproto"
	"github.com/roostproject/roost/internal/realip"
)

// Behind trusted proxies a connection's client is the one they name, not
// the peer (docs/security.md, "Behind a proxy"): by a PROXY header, read
// before anything else on the connection (on the loops by netpoll, for
// net/http and TLS by proxyproto.Listener), and then by the forwarding
// header of each request. Every per-address limit, the logs and the API
// see that client.

// proxies is what the node takes from trusted proxies.
type proxies struct {
	trust         realip.Trust
	header        realip.Header
	proxyProtocol bool
}

func newProxies(cfg *config.Config) (proxies, error) {
	t, err := realip.ParseTrust(cfg.TrustedProxies)
	if err != nil {
		return proxies{}, &config.FieldError{Field: "trusted_proxies", Err: err}
	}
	p := proxies{trust: t, proxyProtocol: cfg.ProxyProtocol && !t.Empty()}
	if cfg.ForwardedHeader == "forwarded" {
		p.header = realip.Forwarded
	}
	return p, nil
}

// client is the client of a request from peer whose forwarding header has
// these lines.
func (p *proxies) client(peer netip.Addr, lines []string) netip.Addr {
	if p.trust.Empty() {
		return peer
	}
	return p.trust.Client(peer, p.header, lines)
}

// clientAddresses makes h see, as each request's RemoteAddr, the client a
// trusted proxy names (with port 0: a forwarding header names no port).
func (s *Server) clientAddresses(h http.Handler) http.Handler {
	if s.proxies.trust.Empty() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := remoteIP(r)
		if c := s.proxies.client(peer, r.Header.Values(s.proxies.header.Name())); c != peer {
			r = r.WithContext(r.Context()) // a copy: a handler does not change its request
			r.RemoteAddr = netip.AddrPortFrom(c, 0).String()
		}
		h.ServeHTTP(w, r)
	})
}

// proxied reads a PROXY header from each connection of ln from a trusted
// proxy, when proxy_protocol is on; ln serves net/http, perhaps under TLS.
func (s *Server) proxied(ln net.Listener) net.Listener {
	if !s.proxies.proxyProtocol {
		return ln
	}
	return proxyproto.NewListener(ln, proxyproto.Options{Trusted: s.proxies.trust.Contains,
		Timeout: s.cfg.Limits.HandshakeTimeout, Refused: s.proxyRefused})
}

// proxyHeader is netpoll's ProxyHeader: nil when proxy_protocol is off.
func (s *Server) proxyHeader() func(netip.Addr) bool {
	if !s.proxies.proxyProtocol {
		return nil
	}
	return s.proxies.trust.Contains
}

// proxyRefused counts and logs a connection from a trusted proxy closed
// for an invalid PROXY header. One that timed out is counted as a
// handshake timeout; one the peer closed is not a refusal.
func (s *Server) proxyRefused(peer netip.Addr, err error) {
	if !errors.Is(err, proxyproto.ErrInvalid) {
		return
	}
	s.door.Refuse(s.wsTransport(), admission.Invalid)
	s.limitedLog.Warn("connection from a trusted proxy refused: no valid PROXY protocol header", "peer", peer)
}

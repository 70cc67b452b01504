package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/roostproject/roost/internal/certs"
)

// edge is what serves TLS: where the certificates come from and, with
// ACME, the HTTP-01 challenge server on tls.acme.http_addr.
type edge struct {
	certs     certs.Source
	challenge *http.Server
	challLn   net.Listener
}

// listenTLS returns ln serving TLS with the configured certificates, whose
// changes reach new handshakes on either transport: both take their
// connections from this listener (docs/design.md, "TLS on the epoll
// transport").
func (s *Server) listenTLS(ln net.Listener) (net.Listener, error) {
	src, err := certs.New(s.cfg.TLS, s.log)
	if err != nil {
		return nil, fmt.Errorf("server: tls: %w", err)
	}
	s.edge.certs = src
	if a, ok := src.(*certs.ACME); ok {
		addr := s.cfg.TLS.ACME.HTTPAddr
		if s.edge.challLn, err = net.Listen("tcp", addr); err != nil {
			return nil, fmt.Errorf("server: listen on %s (tls.acme.http_addr): %w", addr, err)
		}
		s.edge.challenge = s.httpServer(a.HTTPHandler())
	}
	return tlsListener{Listener: ln, cfg: certs.ServerConfig(src)}, nil
}

// serveEdge keeps the certificates current until ctx ends: it watches the
// files, or serves the HTTP-01 challenge, whose failure goes to errc.
func (s *Server) serveEdge(ctx context.Context, errc chan<- error) {
	if f, ok := s.edge.certs.(*certs.Files); ok && s.cfg.TLS.WatchInterval > 0 { // zero only where code built the config
		go f.Watch(ctx, s.cfg.TLS.WatchInterval)
	}
	if s.edge.challenge != nil {
		go func() { errc <- s.edge.challenge.Serve(s.edge.challLn) }()
	}
}

// shutdownEdge stops the HTTP-01 challenge server, if any.
func (s *Server) shutdownEdge(ctx context.Context) error {
	if s.edge.challenge == nil {
		return nil
	}
	return s.edge.challenge.Shutdown(ctx)
}

// closeEdge closes the HTTP-01 challenge listener when Listen fails after
// binding it.
func (s *Server) closeEdge() {
	if s.edge.challLn != nil {
		s.edge.challLn.Close()
	}
}

// ChallengeAddr returns the address the HTTP-01 challenge is answered on,
// once Listen has bound it, else "".
func (s *Server) ChallengeAddr() string {
	if s.edge.challLn == nil {
		return ""
	}
	return s.edge.challLn.Addr().String()
}

// TLSEnabled reports whether the node serves TLS itself.
func (s *Server) TLSEnabled() bool { return s.edge.certs != nil }

// ReloadCertificates reads the certificate files again now (SIGHUP): new
// handshakes get the new pair, open connections keep theirs, and a pair
// that cannot be served is logged and refused, the old one staying.
func (s *Server) ReloadCertificates() error {
	if s.edge.certs == nil {
		return errors.New("server: no certificate to reload: TLS is off")
	}
	return s.edge.certs.Reload()
}

package server

import (
	"crypto/tls"
	"net"
	"strconv"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// acmeDomain is the name roost gets a certificate for; Pebble's DNS
// server resolves every name to 127.0.0.1.
const acmeDomain = "roost.test"

// TestACMECertificateFromPebble: with tls.acme, the first handshake for a
// domain gets a certificate that a real ACME server (Pebble) issued once
// it validated roost: by TLS-ALPN-01 on roost's own listener, or, when
// that port is not roost's, by HTTP-01 on tls.acme.http_addr. Clients then
// connect over wss:// with the certificate verified against Pebble's root.
func TestACMECertificateFromPebble(t *testing.T) {
	for _, tt := range []struct {
		challenge, transport string
	}{{"tls-alpn-01", "epoll"}, {"http-01", "portable"}} {
		t.Run(tt.challenge, func(t *testing.T) {
			pebble := testutil.NewPebble(t)
			srv := newServer(t, tt.transport, func(c *config.Config) {
				c.TLS.ACME = config.ACME{Domains: []string{acmeDomain}, CacheDir: t.TempDir(),
					DirectoryURL: pebble.DirectoryURL, CAFile: pebble.CAFile, HTTPAddr: "127.0.0.1:0"}
			})
			ln, err := srv.Listen()
			if err != nil {
				t.Fatal(err)
			}
			tlsPort := port(t, ln.Addr().String())
			if tt.challenge == "http-01" {
				tlsPort = port(t, closedAddr(t)) // TLS-ALPN-01 fails: autocert falls back to HTTP-01
			}
			pebble.Start(t, port(t, srv.ChallengeAddr()), tlsPort)
			s := serve(t, srv, ln, nil)
			cfg := &tls.Config{RootCAs: pebble.Roots(t), ServerName: acmeDomain}
			c, err := tls.Dial("tcp", s.addr, cfg)
			if err != nil {
				t.Fatalf("a handshake for %s: %v", acmeDomain, err)
			}
			leaf := c.ConnectionState().PeerCertificates[0]
			c.Close()
			if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != acmeDomain {
				t.Fatalf("served a certificate for %q, want %s", leaf.DNSNames, acmeDomain)
			}
			s.wss, s.opts = true, &ws.DialOptions{TLSConfig: cfg}
			s.connect(t).Ping()
		})
	}
}

// port returns the port of a host:port address.
func port(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

// closedAddr returns a loopback address nothing listens on any more.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	return ln.Addr().String()
}

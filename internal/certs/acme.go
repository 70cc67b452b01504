package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/roostproject/roost/internal/config"
)

// ACME gets a certificate for each of its domains from an ACME server on
// the first handshake that asks for it, keeps it in the cache directory and
// renews it before it expires (autocert), answering the TLS-ALPN-01
// challenge on the TLS listener and HTTP-01 on HTTPHandler.
type ACME struct {
	m      *autocert.Manager
	log    *slog.Logger
	logged sync.Map // domain → the *tls.Certificate last logged for it
}

// NewACME returns the ACME source c describes. Setting tls.acme.domains
// accepts the ACME server's terms of service.
func NewACME(c config.ACME, log *slog.Logger) (*ACME, error) {
	client := &acme.Client{DirectoryURL: c.DirectoryURL, UserAgent: "roost"}
	if c.CAFile != "" {
		pool, err := trust(c.CAFile)
		if err != nil {
			return nil, err
		}
		client.HTTPClient = &http.Client{Timeout: time.Minute,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, Proxy: http.ProxyFromEnvironment}}
	}
	m := &autocert.Manager{
		Prompt: autocert.AcceptTOS, Cache: autocert.DirCache(c.CacheDir), Client: client,
		HostPolicy: hostPolicy(c.Domains), Email: c.Email,
	}
	log.Info("tls: certificates from ACME", "domains", c.Domains, "directory_url", c.DirectoryURL, "cache_dir", c.CacheDir)
	return &ACME{m: m, log: log}, nil
}

// hostPolicy allows the domains only. The HTTP-01 handler passes it the
// request's Host, which carries a port when the challenge is not on port
// 80 (a port mapping, a test); a policy is about names, so the port goes.
func hostPolicy(domains []string) autocert.HostPolicy {
	allowed := autocert.HostWhitelist(domains...)
	return func(ctx context.Context, host string) error {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		return allowed(ctx, host)
	}
}

// trust returns the system's roots and the PEM certificates in file.
func trust(file string) (*x509.CertPool, error) {
	pem, err := readFile("tls.acme.ca_file", file)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls.acme.ca_file %s: no PEM certificate", file)
	}
	return pool, nil
}

// GetCertificate returns the domain's certificate, getting it first if
// there is none yet (tls.Config.GetCertificate), and logs each new one.
func (a *ACME) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	cert, err := a.m.GetCertificate(hello)
	if err != nil {
		a.log.Warn("tls: no ACME certificate", "server_name", hello.ServerName, "err", err)
		return nil, err
	}
	if !slices.Contains(hello.SupportedProtos, acme.ALPNProto) {
		a.announce(hello.ServerName, cert)
	}
	return cert, nil
}

// announce logs cert, the first time it is served for domain.
func (a *ACME) announce(domain string, cert *tls.Certificate) {
	if last, ok := a.logged.Load(domain); ok && last == cert {
		return
	}
	a.logged.Store(domain, cert)
	if cert.Leaf != nil {
		a.log.Info("tls: serving certificate", describe(cert)...)
	}
}

// Reload only says that there is nothing to read: autocert renews each
// certificate itself, 30 days before it expires.
func (a *ACME) Reload() error {
	a.log.Info("tls: certificates from ACME renew themselves; nothing to reload")
	return nil
}

// HTTPHandler answers the HTTP-01 challenge and redirects every other
// request to https://.
func (a *ACME) HTTPHandler() http.Handler { return a.m.HTTPHandler(nil) }

// NextProtos are the ALPN protocols the TLS listener offers: HTTP/1.1 and
// the TLS-ALPN-01 challenge's (RFC 8737).
func (a *ACME) NextProtos() []string { return []string{"http/1.1", acme.ALPNProto} }

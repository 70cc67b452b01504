package certs

import (
	"crypto/tls"
	"log/slog"

	"github.com/roostproject/roost/internal/config"
)

// Source hands out the certificate for each TLS handshake.
type Source interface {
	// GetCertificate returns the certificate for a handshake
	// (tls.Config.GetCertificate).
	GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error)
	// Reload reads the certificate again now, where it comes from files;
	// on error the one served before stays.
	Reload() error
}

// New returns the source c names: ACME when tls.acme.domains is set, else
// the pair of files, read once now.
func New(c config.TLS, log *slog.Logger) (Source, error) {
	if c.ACME.Enabled() {
		return NewACME(c.ACME, log)
	}
	return OpenFiles(c.CertFile, c.KeyFile, log)
}

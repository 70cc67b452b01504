package certs

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// maxFileSize bounds what is read of a certificate or key file: a chain
// of a few certificates is a few KB.
const maxFileSize = 1 << 20

// readFile reads at most maxFileSize bytes of the file setting names.
func readFile(setting, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err == nil && len(b) > maxFileSize {
		err = fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", setting, path, err)
	}
	return b, nil
}

// parsePair checks that certPEM and keyPEM make a pair that can be served
// at now: the key matches the first certificate, which has not expired.
func parsePair(certPEM, keyPEM []byte, now time.Time) (*tls.Certificate, error) {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("tls.cert_file and tls.key_file: %w", err)
	}
	if cert.Leaf == nil {
		return nil, errors.New("tls.cert_file: no certificate")
	}
	if now.After(cert.Leaf.NotAfter) {
		return nil, fmt.Errorf("tls.cert_file: the certificate expired at %s", cert.Leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	return &cert, nil
}

// describe returns log attributes that say which certificate is served.
func describe(cert *tls.Certificate) []any {
	l := cert.Leaf
	return []any{
		slog.String("subject", l.Subject.String()), slog.Any("dns_names", l.DNSNames),
		slog.String("issuer", l.Issuer.String()), slog.String("serial", l.SerialNumber.Text(16)),
		slog.Time("not_after", l.NotAfter.UTC()),
	}
}

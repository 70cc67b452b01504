package certs

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Files serves the pair of PEM files it was opened with, and reads them
// again on Reload and, under Watch, when they change.
type Files struct {
	certFile, keyFile string
	log               *slog.Logger
	now               func() time.Time
	cur               atomic.Pointer[tls.Certificate]

	mu      sync.Mutex // one read at a time; guards what follows
	seen    [2][sha256.Size]byte
	lastErr string // the last refusal logged, so that Watch logs it once
}

// OpenFiles reads the pair and serves it, or says why it cannot.
func OpenFiles(certFile, keyFile string, log *slog.Logger) (*Files, error) {
	return openFiles(certFile, keyFile, log, time.Now)
}

// openFiles is OpenFiles with a clock, for the expiry check.
func openFiles(certFile, keyFile string, log *slog.Logger, now func() time.Time) (*Files, error) {
	f := &Files{certFile: certFile, keyFile: keyFile, log: log, now: now}
	f.mu.Lock()
	defer f.mu.Unlock()
	certPEM, keyPEM, err := f.readPair()
	if err == nil {
		err = f.serve(certPEM, keyPEM)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// GetCertificate returns the pair served now (tls.Config.GetCertificate).
func (f *Files) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return f.cur.Load(), nil
}

// Certificate returns the pair served now.
func (f *Files) Certificate() *tls.Certificate { return f.cur.Load() }

// Reload reads the files now and serves their pair if it can be served;
// if not, it logs why and returns the error, and the pair served before
// stays.
func (f *Files) Reload() error { return f.read(true) }

// Watch reads the files every interval until ctx ends and serves a pair
// that changed. A changed pair that cannot be served is logged once.
func (f *Files) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.read(false)
		}
	}
}

// read reads both files and serves their pair; unless always, contents
// read before, served or refused, are left alone.
func (f *Files) read(always bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	certPEM, keyPEM, err := f.readPair()
	if err != nil {
		return f.refuse(err, always)
	}
	seen := digest(certPEM, keyPEM)
	if seen == f.seen && !always {
		return nil
	}
	f.seen = seen
	if err := f.serve(certPEM, keyPEM); err != nil {
		return f.refuse(err, true)
	}
	return nil
}

// readPair reads the certificate file and the key file.
func (f *Files) readPair() (certPEM, keyPEM []byte, err error) {
	if certPEM, err = readFile("tls.cert_file", f.certFile); err != nil {
		return nil, nil, err
	}
	if keyPEM, err = readFile("tls.key_file", f.keyFile); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// serve parses a pair and, if it can be served, serves it to new
// handshakes from now on.
func (f *Files) serve(certPEM, keyPEM []byte) error {
	cert, err := parsePair(certPEM, keyPEM, f.now())
	if err != nil {
		return err
	}
	f.seen = digest(certPEM, keyPEM)
	f.lastErr = ""
	f.cur.Store(cert)
	f.log.Info("tls: serving certificate", describe(cert)...)
	return nil
}

// refuse logs why a pair was not served, unless it was the last refusal
// logged and always is false, and returns err.
func (f *Files) refuse(err error, always bool) error {
	if always || err.Error() != f.lastErr {
		f.lastErr = err.Error()
		f.log.Error("tls: certificate refused, the one served before stays", "err", err, "serving", f.cur.Load().Leaf.SerialNumber.Text(16))
	}
	return err
}

// digest identifies the contents of a pair of files.
func digest(certPEM, keyPEM []byte) [2][sha256.Size]byte {
	return [2][sha256.Size]byte{sha256.Sum256(certPEM), sha256.Sum256(keyPEM)}
}

//go:build unix

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
)

// TestHangupReloadsTheCertificate: a SIGHUP to the process makes a node
// serve the pair now on disk to new handshakes, without waiting for
// tls.watch_interval.
func TestHangupReloadsTheCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	a, b := testutil.NewTestCert(t, 1, time.Now().Add(time.Hour)), testutil.NewTestCert(t, 2, time.Now().Add(time.Hour))
	a.Write(t, certFile, keyFile)
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\ntls: {cert_file: "+certFile+", key_file: "+keyFile+", watch_interval: 1000h}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, addr := serveInProcess(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	onHangup(ctx, func() { reloadCertificates(srv) })
	b.Write(t, certFile, keyFile)
	pool := x509.NewCertPool()
	pool.AddCert(a.Leaf)
	pool.AddCert(b.Leaf)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the new certificate after SIGHUP", func() bool { return served(t, addr, pool) == 2 })
}

// served returns the serial number of the certificate a new handshake at
// addr gets.
func served(t *testing.T, addr string, pool *x509.CertPool) int64 {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

package server

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// swapServer is a node serving wss:// from a pair of files that a test
// writes over.
type swapServer struct {
	*testServer
	certFile, keyFile string
	pool              *x509.CertPool // trusts every certificate written
}

// startSwapServer starts a node on transport serving the certificate with
// serial 1, which checks its files every interval.
func startSwapServer(t *testing.T, transport string, interval time.Duration) *swapServer {
	t.Helper()
	dir := t.TempDir()
	sw := &swapServer{certFile: filepath.Join(dir, "cert.pem"), keyFile: filepath.Join(dir, "key.pem"), pool: x509.NewCertPool()}
	sw.write(t, testutil.NewTestCert(t, 1, time.Now().Add(time.Hour)))
	sw.testServer = startServer(t, transport, func(c *config.Config) {
		c.TLS = config.TLS{CertFile: sw.certFile, KeyFile: sw.keyFile, WatchInterval: interval}
	})
	sw.wss, sw.opts = true, &ws.DialOptions{TLSConfig: &tls.Config{RootCAs: sw.pool}}
	return sw
}

// write puts c's pair on disk, trusted by the clients.
func (sw *swapServer) write(t *testing.T, c testutil.TestCert) {
	sw.pool.AddCert(c.Leaf)
	c.Write(t, sw.certFile, sw.keyFile)
}

// served returns the serial number of the certificate a new handshake gets.
func (sw *swapServer) served(t *testing.T) int64 {
	t.Helper()
	c, err := tls.Dial("tcp", sw.addr, &tls.Config{RootCAs: sw.pool})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// TestCertificateSwapUnderOpenConnections: a pair written over the files
// and reloaded, as SIGHUP does, reaches new handshakes while 1,000 open
// wss:// connections carry on: every one still answers pings and receives
// events, and none is dropped.
func TestCertificateSwapUnderOpenConnections(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			sw := startSwapServer(t, tr, time.Hour)
			const n = 1000
			clients := make([]*testutil.Client, n)
			for i := range clients {
				clients[i] = sw.connect(t)
				clients[i].Subscribe("swap")
			}
			sw.write(t, testutil.NewTestCert(t, 2, time.Now().Add(time.Hour)))
			if err := sw.ReloadCertificates(); err != nil {
				t.Fatal(err)
			}
			if got := sw.served(t); got != 2 {
				t.Fatalf("a new handshake got serial %d after the reload, want 2", got)
			}
			sw.Hub().Publish("app-id", hub.Publication{Channels: []string{"swap"}, Event: "after-swap", Data: "{}"})
			for _, c := range clients {
				c.Expect("after-swap")
				c.Ping()
			}
			if got := sw.Connections(); got != n {
				t.Fatalf("%d connections after the swap, want all %d", got, n)
			}
			sw.connect(t).Ping() // a client of the new certificate is served too
		})
	}
}

// TestCertificateFilesAreWatched: a pair written over the files reaches
// new handshakes at the next check, without a signal.
func TestCertificateFilesAreWatched(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			sw := startSwapServer(t, tr, 10*time.Millisecond)
			open := sw.connect(t)
			sw.write(t, testutil.NewTestCert(t, 2, time.Now().Add(time.Hour)))
			testutil.Eventually(t, waitLimit, "the new certificate to be served", func() bool { return sw.served(t) == 2 })
			open.Ping()
		})
	}
}

// TestBadCertificateKeepsTheOld: a reload of a pair whose key does not
// match is refused, and new handshakes still get the old certificate.
func TestBadCertificateKeepsTheOld(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			sw := startSwapServer(t, tr, time.Hour)
			open := sw.connect(t)
			a, b := testutil.NewTestCert(t, 2, time.Now().Add(time.Hour)), testutil.NewTestCert(t, 3, time.Now().Add(time.Hour))
			testutil.WriteFileAtomic(t, sw.certFile, a.CertPEM)
			testutil.WriteFileAtomic(t, sw.keyFile, b.KeyPEM)
			if err := sw.ReloadCertificates(); err == nil {
				t.Fatal("a mismatched pair was reloaded, want it refused")
			}
			if got := sw.served(t); got != 1 {
				t.Fatalf("a new handshake got serial %d after a refused pair, want 1 kept", got)
			}
			open.Ping()
			sw.connect(t).Ping()
		})
	}
}

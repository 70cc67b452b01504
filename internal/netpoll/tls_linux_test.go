package netpoll

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// tlsServerConfig returns a server configuration with a fresh self-signed
// certificate.
func tlsServerConfig(tb testing.TB) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// testApp is the app of every connection a test adds, as a node's
// connections share their app's configuration.
var testApp = &config.App{ID: "app", Key: "key"}

// addTLS hands p the server end of a fresh wss:// connection from ln, as
// the upgrade does, and returns the client end's descriptor once the
// client has read its connection_established. The client's tls.Conn and
// net.Conn are dropped, so the heap holds only the server's side.
func addTLS(tb testing.TB, p *Poller, ln net.Listener, cfg *tls.Config) int {
	type dialed struct {
		fd  int
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		fd, err := dialTLS(ln.Addr().String())
		done <- dialed{fd, err}
	}()
	nc, err := ln.Accept()
	if err != nil {
		tb.Fatal(err)
	}
	tc := tls.Server(NewStream(nc), cfg)
	if err := tc.Handshake(); err != nil {
		tb.Fatal(err)
	}
	fd, err := Dup(tc.NetConn())
	if err != nil {
		tb.Fatal(err)
	}
	p.AddTLS(fd, tc, nil, testApp, ws.State{})
	d := <-done
	if d.err != nil {
		tb.Fatal(d.err)
	}
	return d.fd
}

// dialTLS connects to addr over TLS, reads the first record and returns
// a duplicate of the socket.
func dialTLS(addr string) (int, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return -1, err
	}
	defer nc.Close()
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
	if _, err := tc.Read(make([]byte, 512)); err != nil { // connection_established
		return -1, err
	}
	return Dup(nc)
}

// BenchmarkTLSConnHeap reports the heap an idle wss:// connection holds
// on a loop past its connection_established: its tls.Conn (with its cipher
// states), Stream and slot, its conn and session. What crypto/tls keeps
// only for the handshake or for calls the loop never makes must not be in
// it (docs/design.md, "TLS on the epoll transport").
func BenchmarkTLSConnHeap(b *testing.B) {
	b.ReportAllocs()
	cfg := tlsServerConfig(b)
	var perConn float64
	for b.Loop() {
		perConn = tlsConnHeap(b, cfg)
	}
	b.ReportMetric(perConn, "heapB/conn")
}

// tlsConnHeap measures the heap 200 idle wss:// connections on one loop
// hold.
func tlsConnHeap(b *testing.B, cfg *tls.Config) float64 {
	const n = 200
	p := newTestPoller(b)
	defer p.close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	fds := make([]int, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range fds {
		fds[i] = addTLS(b, p, ln, cfg)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, fd := range fds {
		unix.Close(fd)
	}
	return float64(after.HeapAlloc-before.HeapAlloc) / n
}

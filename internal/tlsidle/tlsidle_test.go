package tlsidle

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"runtime"
	"testing"
	"time"
)

// serverConfig returns a TLS configuration with a fresh self-signed
// certificate.
func serverConfig(tb testing.TB) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"roost.test"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// pair returns a server connection past its handshake and the client's,
// over loopback TCP. The client offers TLS versions up to maxVersion (zero
// means crypto/tls's default, TLS 1.3).
func pair(tb testing.TB, cfg *tls.Config, maxVersion uint16) (server, client *tls.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			done <- err
			return
		}
		client = tls.Client(nc, &tls.Config{InsecureSkipVerify: true, MaxVersion: maxVersion})
		done <- client.Handshake()
	}()
	nc, err := ln.Accept()
	if err != nil {
		tb.Fatal(err)
	}
	server = tls.Server(nc, cfg)
	if err := server.Handshake(); err != nil {
		tb.Fatal(err)
	}
	if err := <-done; err != nil {
		tb.Fatal(err)
	}
	return server, client
}

// exchange sends msg from client to server and back, checking both ends.
func exchange(tb testing.TB, server, client *tls.Conn, msg []byte) {
	tb.Helper()
	go client.Write(msg)
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(server, got); err != nil || !bytes.Equal(got, msg) {
		tb.Fatalf("server read %d bytes, err %v", len(got), err)
	}
	go server.Write(msg)
	if _, err := io.ReadFull(client, got); err != nil || !bytes.Equal(got, msg) {
		tb.Fatalf("client read %d bytes, err %v", len(got), err)
	}
}

func TestSupported(t *testing.T) {
	if !Supported() {
		t.Fatal("crypto/tls's buffers are not where Shrink looks for them: update tlsidle for this Go release")
	}
}

// TestShrinkKeepsTheConnectionWorking shrinks between messages of every
// size, across record boundaries, and checks that every byte still arrives.
func TestShrinkKeepsTheConnectionWorking(t *testing.T) {
	server, client := pair(t, serverConfig(t), 0)
	defer server.Close()
	defer client.Close()
	if !Shrink(server) {
		t.Fatal("Shrink did nothing after the handshake")
	}
	for _, n := range []int{1, 100, 16 << 10, 16<<10 + 1, 70 << 10, 5} {
		msg := bytes.Repeat([]byte{byte(n)}, n)
		exchange(t, server, client, msg)
		if !Shrink(server) {
			t.Fatalf("Shrink did nothing after a %d-byte message", n)
		}
	}
}

// TestShrinkLeavesBufferedData: nothing is released while a record (or
// part of one) is still to be read.
func TestShrinkLeavesBufferedData(t *testing.T) {
	server, client := pair(t, serverConfig(t), 0)
	defer server.Close()
	defer client.Close()
	go client.Write([]byte("hello, world"))
	b := make([]byte, 5)
	if _, err := io.ReadFull(server, b); err != nil {
		t.Fatal(err)
	}
	if Shrink(server) {
		t.Fatal("Shrink released the buffer of a record half read")
	}
	rest := make([]byte, 7)
	if _, err := io.ReadFull(server, rest); err != nil || string(rest) != ", world" {
		t.Fatalf("read %q, %v after Shrink", rest, err)
	}
}

// BenchmarkIdleConnHeap reports the heap one server connection holds
// after its handshake and one small message: as crypto/tls leaves it, after
// Shrink, and after Shrink and Forget, with TLS 1.3 and with TLS 1.2.
func BenchmarkIdleConnHeap(b *testing.B) {
	versions := []struct {
		name string
		max  uint16
	}{{"tls13", tls.VersionTLS13}, {"tls12", tls.VersionTLS12}}
	releases := []struct {
		name    string
		release func(*tls.Conn)
	}{
		{"kept", func(*tls.Conn) {}},
		{"shrunk", func(c *tls.Conn) { Shrink(c) }},
		{"forgotten", func(c *tls.Conn) { Shrink(c); Forget(c) }},
	}
	for _, v := range versions {
		for _, r := range releases {
			b.Run(v.name+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				cfg := serverConfig(b)
				var perConn float64
				for range b.N {
					perConn = idleHeap(b, cfg, v.max, r.release)
				}
				b.ReportMetric(perConn, "heapB/conn")
			})
		}
	}
}

// idleHeap measures the heap 200 idle server connections hold once
// release has run on each.
func idleHeap(b *testing.B, cfg *tls.Config, maxVersion uint16, release func(*tls.Conn)) float64 {
	const n = 200
	servers := make([]*tls.Conn, n)
	clients := make([]*tls.Conn, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		servers[i], clients[i] = pair(b, cfg, maxVersion)
		exchange(b, servers[i], clients[i], []byte(`{"event":"pusher:ping","data":{}}`))
		release(servers[i])
	}
	for i := range clients { // keep only the servers' side
		clients[i].NetConn().Close()
		clients[i] = nil
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, s := range servers {
		s.NetConn().Close()
	}
	runtime.KeepAlive(servers)
	return float64(after.HeapAlloc-before.HeapAlloc) / n
}

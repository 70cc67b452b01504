package server

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	c := testutil.NewTestCert(t, 1, time.Now().Add(time.Hour))
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	c.Write(t, certFile, keyFile)
	return certFile, keyFile, c.Pool()
}

// startTLSServer starts a node that serves wss:// itself with a fresh
// self-signed certificate, which its clients trust.
func startTLSServer(t *testing.T, transport string, edit func(*config.Config)) *testServer {
	t.Helper()
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	s := startServer(t, transport, func(c *config.Config) {
		c.TLS = config.TLS{CertFile: certFile, KeyFile: keyFile}
		if edit != nil {
			edit(c)
		}
	})
	s.wss, s.opts = true, &ws.DialOptions{TLSConfig: &tls.Config{RootCAs: pool}}
	return s
}

// eachTLSTransport runs f over wss:// on both transports; "auto" must pick
// epoll on Linux, TLS or not.
func eachTLSTransport(t *testing.T, f func(t *testing.T, s *testServer)) {
	for _, tr := range []string{"auto", "portable"} {
		t.Run(tr, func(t *testing.T) {
			s := startTLSServer(t, tr, nil)
			if got, want := strings.TrimSuffix(s.Transport(), "+uring"), map[string]string{"auto": "epoll", "portable": "portable"}[tr]; got != want {
				t.Fatalf("transport %s serves TLS on %s, want %s", tr, s.Transport(), want)
			}
			f(t, s)
		})
	}
}

// TestTLS: with --tls-cert/--tls-key the node serves wss:// itself, on
// either transport.
func TestTLS(t *testing.T) {
	eachTLSTransport(t, func(t *testing.T, s *testServer) {
		cl := s.connect(t)
		cl.Subscribe("secure")
		cl.Ping()
		if n := s.Connections(); n != 1 {
			t.Fatalf("%d connections served, want 1", n)
		}
	})
}

// TestTLSRecords: messages larger than one TLS record (16 KB), in both
// directions, and a burst of messages that outlasts a loop's turn all
// arrive whole and in order.
func TestTLSRecords(t *testing.T) {
	eachTLSTransport(t, func(t *testing.T, s *testServer) {
		a, b := s.connect(t), s.connect(t)
		for _, c := range []*testutil.Client{a, b} {
			c.SubscribeWith("private-big", sign(c, "private-big", ""), "")
		}
		big := strings.Repeat("z", 40<<10)
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{"private-big"}, Event: "e", Data: big})
		if ev := a.Expect("e"); len(ev.Data) < len(big) {
			t.Fatalf("a %d-byte event arrived as %d bytes", len(big), len(ev.Data))
		}
		a.Send(`{"event":"client-big","channel":"private-big","data":{"x":%q}}`, strings.Repeat("c", 50<<10))
		if ev := b.Next(testutil.Named("client-big")); len(ev.Data) < 50<<10 {
			t.Fatalf("a 50 KB client event arrived as %d bytes", len(ev.Data))
		}
		const burst = 2500 // past one turn's budget of 64 messages, and past the loop's 64 KB buffer
		for range burst {
			a.Send(`{"event":"pusher:ping","data":{}}`)
		}
		for range burst {
			a.Expect("pusher:pong")
		}
	})
}

// TestTLSCloseIsEchoed: a client's close frame is answered with the same
// code over TLS, and the connection is released.
func TestTLSCloseIsEchoed(t *testing.T) {
	eachTLSTransport(t, func(t *testing.T, s *testServer) {
		cl := s.connect(t)
		cl.Conn.WriteClose(4321, "bye")
		if got := cl.CloseCode(); got != 4321 {
			t.Fatalf("close code %d, want 4321 echoed", got)
		}
		testutil.Eventually(t, waitLimit, "the connection to be released", func() bool { return s.Connections() == 0 })
	})
}

// TestTLSSlowConsumerGetsOverCapacity: a wss:// client that stops reading is
// closed with 4100, which it reads, decrypted, once it reads again.
func TestTLSSlowConsumerGetsOverCapacity(t *testing.T) {
	for _, tr := range []string{"epoll", "portable"} {
		t.Run(tr, func(t *testing.T) {
			s := startTLSServer(t, tr, func(c *config.Config) { c.Limits.WriteBacklog = 64 << 10 })
			slow := s.connect(t)
			slow.Subscribe("firehose")
			data := strings.Repeat("x", 8<<10)
			testutil.Eventually(t, waitLimit, "the slow consumer to be closed", func() bool {
				for range 16 {
					s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
				}
				return !channelOf(s, "firehose").Occupied
			})
			if got := slow.CloseCode(); got != ws.CloseCode(pusher.OverCapacity) {
				t.Fatalf("close code %d, want %d", got, pusher.OverCapacity)
			}
		})
	}
}

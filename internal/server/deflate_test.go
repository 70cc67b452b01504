package server

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// countingConn counts the bytes a client reads from the server.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// dialCounting returns dial options that offer deflate (or not) and count
// what the connection reads into n.
func dialCounting(deflate bool, n *atomic.Int64) *ws.DialOptions {
	var d net.Dialer
	return &ws.DialOptions{Deflate: deflate, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		return countingConn{c, n}, err
	}}
}

// TestDeflatePublish publishes a 1 KB event to two subscribers of an app
// with compression, one that offered permessage-deflate and one that did
// not: both read the same event, the first in about half the bytes. On the
// epoll transport both handshakes are upgraded by the loops themselves.
func TestDeflatePublish(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Apps[0].Compression = true })
		deflatePublish(t, s)
		if tr == "epoll" && (s.handoff == nil || s.handoff.passed.Load() != 0) {
			t.Fatal("the handshakes did not take the epoll loops' own path")
		}
	})
}

// TestDeflatePublishTLS: over wss:// as well, on both transports; on epoll
// the negotiated state moves to the loop with the TLS connection.
func TestDeflatePublishTLS(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		deflatePublish(t, startTLSServer(t, tr, func(c *config.Config) { c.Apps[0].Compression = true }))
	})
}

// deflatePublish is TestDeflatePublish on a started server of an app with
// compression.
func deflatePublish(t *testing.T, s *testServer) {
	var zBytes, plainBytes atomic.Int64
	zOpts, plainOpts := dialCounting(true, &zBytes), dialCounting(false, &plainBytes)
	if s.opts != nil {
		zOpts.TLSConfig, plainOpts.TLSConfig = s.opts.TLSConfig, s.opts.TLSConfig
	}
	z := testutil.Connect(t, s.url("app-key"), zOpts)
	plain := testutil.Connect(t, s.url("app-key"), plainOpts)
	if !z.Conn.Deflated() || plain.Conn.Deflated() {
		t.Fatalf("negotiated: offering client %v, silent client %v", z.Conn.Deflated(), plain.Conn.Deflated())
	}
	z.Subscribe("orders")
	plain.Subscribe("orders")
	z0, p0 := zBytes.Load(), plainBytes.Load()
	s.Hub().Publish("app-id", hub.Publication{Channels: []string{"orders"}, Event: "updated", Data: typicalData})
	zd, pd := z.Expect("updated").Data, plain.Expect("updated").Data
	if string(zd) != string(pd) || !strings.Contains(string(zd), "ORD-2026-048213") {
		t.Fatalf("the compressed client read %s, the other %s", zd, pd)
	}
	zw, pw := zBytes.Load()-z0, plainBytes.Load()-p0
	if zw >= pw*2/3 {
		t.Fatalf("the event took %d bytes compressed, %d plain", zw, pw)
	}
}

// TestDeflateOnlyForItsApps: an app without compression ignores the offer.
func TestDeflateOnlyForItsApps(t *testing.T) {
	s := startServer(t, "epoll", nil)
	c := testutil.Connect(t, s.url("app-key"), &ws.DialOptions{Deflate: true})
	if c.Conn.Deflated() {
		t.Fatal("an app without compression accepted permessage-deflate")
	}
	c.Subscribe("news")
	s.Hub().Publish("app-id", hub.Publication{Channels: []string{"news"}, Event: "e", Data: typicalData})
	c.Expect("e")
}

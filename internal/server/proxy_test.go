package server

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// Behind a proxy: the client a trusted proxy names, by a PROXY header or a
// forwarding header, is what the per-address caps count; from any other
// peer the header is not taken. Every case runs on both transports, with
// and without TLS; the clients are 127.0.0.1 (the trusted proxy) and
// 127.0.0.2 (an untrusted peer), and the addresses they name are
// documentation ones.

// eachListener runs f on both transports, over TCP and TLS, against a node
// that trusts 127.0.0.1 and admits one connection per client address.
func eachListener(t *testing.T, edit func(*config.Config), f func(t *testing.T, s *testServer)) {
	for _, tr := range transports {
		for _, secure := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tls=%v", tr, secure), func(t *testing.T) {
				cfg := func(c *config.Config) {
					c.TrustedProxies, c.Limits.MaxConnectionsPerIP = []string{"127.0.0.1"}, 1
					edit(c)
				}
				if secure {
					f(t, startTLSServer(t, tr, cfg))
				} else {
					f(t, startServer(t, tr, cfg))
				}
			})
		}
	}
}

// handshakeVia dials s from local, sends prefix (a PROXY header, or
// nothing), then the development app's WebSocket handshake with the extra
// header lines (over TLS when s serves it), and returns the response's
// status: 0 when the connection ended without one. A connection answered
// 101 stays open until the test ends, holding its place under the caps.
func (s *testServer) handshakeVia(t *testing.T, local, prefix string, header ...string) int {
	t.Helper()
	d := net.Dialer{Timeout: waitLimit, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	raw, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	raw.SetDeadline(time.Now().Add(waitLimit))
	if _, err := raw.Write([]byte(prefix)); err != nil {
		return 0
	}
	c := raw
	if s.wss {
		cfg := s.opts.TLSConfig.Clone()
		cfg.ServerName = "127.0.0.1"
		c = tls.Client(raw, cfg)
	}
	req := "GET /app/app-key?protocol=7&client=js&version=8.6.0 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\n" +
		"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
		strings.Join(append(header, ""), "\r\n") + "\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	return resp.StatusCode
}

// proxyV1 is the version 1 header HAProxy's send-proxy writes for client.
func proxyV1(client string) string {
	family := "TCP4"
	if strings.Contains(client, ":") {
		family = "TCP6"
		return fmt.Sprintf("PROXY %s %s ::1 40001 6001\r\n", family, client)
	}
	return fmt.Sprintf("PROXY %s %s 127.0.0.1 40001 6001\r\n", family, client)
}

// proxyV2 is the version 2 header send-proxy-v2 (or an AWS NLB) writes
// for client.
func proxyV2(client string) string {
	src := netip.MustParseAddr(client)
	b := []byte("\r\n\r\n\x00\r\nQUIT\n\x21")
	dst := netip.MustParseAddr("127.0.0.1")
	fam := byte(0x11)
	if src.Is6() {
		fam, dst = 0x21, netip.IPv6Loopback()
	}
	b = append(b, fam)
	b = binary.BigEndian.AppendUint16(b, uint16(2*len(src.AsSlice())+4))
	b = append(append(b, src.AsSlice()...), dst.AsSlice()...)
	b = binary.BigEndian.AppendUint16(b, 40001)
	return string(binary.BigEndian.AppendUint16(b, 6001))
}

// want fails unless each handshake got its status.
func want(t *testing.T, got ...[2]int) {
	t.Helper()
	for i, g := range got {
		if g[0] != g[1] {
			t.Errorf("handshake %d: status %d, want %d", i+1, g[0], g[1])
		}
	}
}

func TestProxyProtocolCountsEachClient(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ProxyProtocol = true }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV1("203.0.113.7")), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("203.0.113.8")), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("203.0.113.7")), 503},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV1("203.0.113.8")), 503},
		)
	})
}

func TestProxyProtocolHandedToNetHTTPKeepsTheClient(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ProxyProtocol = true }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV1("203.0.113.7"), "Content-Length: 0"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("203.0.113.8"), "Content-Length: 0"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("203.0.113.7"), "Content-Length: 0"), 503},
		)
	})
}

func TestProxyProtocolRefusesATrustedPeerWithoutAHeader(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ProxyProtocol = true }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", ""), 0},
			[2]int{s.handshakeVia(t, "127.0.0.1", "PROXY TCP4 203.0.113.7\r\n"), 0},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV1("203.0.113.7")), 101}, // not counted: still room
		)
	})
}

func TestProxyProtocolServesAnUntrustedPeerByItsOwnAddress(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ProxyProtocol = true }, func(t *testing.T, s *testServer) {
		if got := s.handshakeVia(t, "127.0.0.2", proxyV1("203.0.113.7")); got == 101 {
			t.Errorf("an untrusted peer's PROXY header was taken: status %d", got)
		}
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.2", ""), 101},
			[2]int{s.handshakeVia(t, "127.0.0.2", ""), 503},
		)
	})
}

func TestForwardedForCountsEachClientOfATrustedProxy(t *testing.T) {
	eachListener(t, func(*config.Config) {}, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 6.6.6.6, 203.0.113.7"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 203.0.113.8"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 203.0.113.7"), 503},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 6.6.6.6", "X-Forwarded-For: 203.0.113.8"), 503},
		)
	})
}

func TestForwardedForIsIgnoredFromAnUntrustedPeer(t *testing.T) {
	eachListener(t, func(*config.Config) {}, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.2", "", "X-Forwarded-For: 203.0.113.7"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.2", "", "X-Forwarded-For: 203.0.113.8"), 503},
		)
	})
}

func TestForwardedHeaderIsTheOneRead(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ForwardedHeader = "forwarded" }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", "", `Forwarded: for="[2001:db8::7]:4711";proto=https`), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "Forwarded: for=203.0.113.8"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 203.0.113.9"), 101}, // counted as 127.0.0.1
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 203.0.113.10"), 503},
		)
	})
}

func TestIPv6ClientsAreCountedByTheirPrefix(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.ProxyProtocol = true }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("2001:db8:1:2::1")), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV1("2001:db8:1:2:ffff:ffff:ffff:ffff")), 503},
			[2]int{s.handshakeVia(t, "127.0.0.1", proxyV2("2001:db8:1:3::1")), 101},
		)
	})
}

func TestIPv6PrefixSetting(t *testing.T) {
	eachListener(t, func(c *config.Config) { c.Limits.IPv6Prefix = 128 }, func(t *testing.T, s *testServer) {
		want(t,
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 2001:db8:1:2::1"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 2001:db8:1:2::2"), 101},
			[2]int{s.handshakeVia(t, "127.0.0.1", "", "X-Forwarded-For: 2001:db8:1:2::1"), 503},
		)
	})
}

package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// handshakeHead is a WebSocket handshake for the development app.
const handshakeHead = "GET /app/app-key?protocol=7&client=js&version=8.6.0 HTTP/1.1\r\nHost: roost\r\n" +
	"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

// TestLoopsUpgradeHandshakes: on the epoll transport a plain handshake is
// upgraded by a loop itself, while every other request, and a handshake
// that is refused, still reaches net/http and is answered as before.
func TestLoopsUpgradeHandshakes(t *testing.T) {
	s := startServer(t, "epoll", nil)
	if s.handoff == nil {
		t.Fatal("the epoll loops do not accept")
	}
	for range 5 {
		s.connect(t).Subscribe("fast")
	}
	if n := s.handoff.passed.Load(); n != 0 {
		t.Fatalf("%d plain handshakes went to net/http, want 0", n)
	}
	if code, _ := s.get(t, "GET", "/up"); code != http.StatusOK {
		t.Fatalf("GET /up: %d", code)
	}
	if got := s.dial(t, "no-such-key").CloseCode(); got != 4001 {
		t.Fatalf("unknown key: close %d, want 4001", got)
	}
	if n := s.handoff.passed.Load(); n != 2 {
		t.Fatalf("%d requests went to net/http, want 2 (GET /up, the unknown key)", n)
	}
}

// TestLoopReadsAHeadInPieces: a request head that arrives a few bytes at a
// time is upgraded, and the frames sent right behind it are served.
func TestLoopReadsAHeadInPieces(t *testing.T) {
	s := startServer(t, "epoll", nil)
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < len(handshakeHead); i += 7 {
		c.Write([]byte(handshakeHead[i:min(i+7, len(handshakeHead))]))
		time.Sleep(time.Millisecond) // separate segments; nothing waits on it
	}
	c.SetReadDeadline(time.Now().Add(waitLimit))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("response %v, %v; want 101", resp, err)
	}
	frame := make([]byte, 2)
	if _, err := io.ReadFull(br, frame); err != nil || frame[0] != 0x81 {
		t.Fatalf("first frame % x, %v; want a text frame (connection_established)", frame, err)
	}
	if s.handoff.passed.Load() != 0 {
		t.Fatal("a handshake in pieces went to net/http")
	}
}

// TestLoopPassesOversizedHeads: a head larger than limits.max_header_bytes
// goes to net/http, which answers 431 as it always did.
func TestLoopPassesOversizedHeads(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.MaxHeaderBytes = 1024 })
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := strings.Replace(handshakeHead, "Host: roost\r\n", "Host: roost\r\nX-Pad: "+strings.Repeat("p", 8<<10)+"\r\n", 1)
	go io.WriteString(c, head)
	c.SetReadDeadline(time.Now().Add(waitLimit))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("response %v, %v; want 431", resp, err)
	}
}

// TestLoopRefusalIsAnsweredOnce: a handshake the door refuses on a loop is
// answered 503 by the loop, and counted once.
func TestLoopRefusalIsAnsweredOnce(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.MaxConnections = 1 })
	s.connect(t)
	s.wantRefused(t, "", "5")
	waitForMetrics(t, s, refusedLine("epoll", admission.Connections, 1))
}

// BenchmarkLoopHandshake is what a loop spends deciding about a plain
// handshake (parse, checks, admission), the user-space part of the
// handshake that roost bench churn measures whole.
func BenchmarkLoopHandshake(b *testing.B) {
	s := newServer(b, "epoll", nil)
	b.Cleanup(func() { s.Shutdown(context.Background()) })
	benchLoopHandshake(b, s, handshakeHead)
}

// benchLoopHandshake has s decide about head, from 127.0.0.1, b.N times.
func benchLoopHandshake(b *testing.B, s *Server, h string) {
	head, from := []byte(h), netip.MustParseAddr("127.0.0.1")
	b.ReportAllocs()
	for b.Loop() {
		up, answer := s.Handshake(7, head, from)
		if up.App == nil || answer != nil {
			b.Fatal("not upgraded")
		}
		s.door.Release(s.fds.take(7))
	}
}

// BenchmarkLoopHandshakeBehindProxy is BenchmarkLoopHandshake from a
// trusted proxy, the client in X-Forwarded-For and counted per address.
func BenchmarkLoopHandshakeBehindProxy(b *testing.B) {
	s := newServer(b, "epoll", func(c *config.Config) {
		c.TrustedProxies, c.Limits.MaxConnectionsPerIP = []string{"127.0.0.1"}, 1
	})
	b.Cleanup(func() { s.Shutdown(context.Background()) })
	benchLoopHandshake(b, s, strings.Replace(handshakeHead, "\r\n\r\n", "\r\nX-Forwarded-For: 6.6.6.6, 203.0.113.7\r\n\r\n", 1))
}

// TestLoopHandshakeAllocations: deciding about a plain handshake on a loop
// allocates one copy of the head and nothing else (http.ReadRequest took
// 17 allocations).
func TestLoopHandshakeAllocations(t *testing.T) {
	s := newServer(t, "epoll", nil)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	head := []byte(handshakeHead)
	from := netip.MustParseAddr("127.0.0.1")
	n := testing.AllocsPerRun(100, func() {
		if up, _ := s.Handshake(7, head, from); up.App == nil {
			t.Fatal("not upgraded")
		}
		s.door.Release(s.fds.take(7))
	})
	if n > 1 {
		t.Fatalf("%v allocations per handshake, want at most 1", n)
	}
}

// TestLoopNegotiatesDeflate: a handshake a loop upgrades itself negotiates
// permessage-deflate by ws.Upgrade's rule (ws.Negotiate): for an app with
// compression the 101 accepts the offer and the connection then reads a
// compressed message; for one without, the 101 names no extension.
func TestLoopNegotiatesDeflate(t *testing.T) {
	const offer = "permessage-deflate; client_max_window_bits"
	head := strings.Replace(handshakeHead, "\r\n\r\n", "\r\nSec-WebSocket-Extensions: "+offer+"\r\n\r\n", 1)
	for _, compression := range []bool{true, false} {
		t.Run(fmt.Sprint("compression=", compression), func(t *testing.T) {
			s := startServer(t, "epoll", func(c *config.Config) { c.Apps[0].Compression = compression })
			c, err := net.Dial("tcp", s.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(waitLimit))
			io.WriteString(c, head)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("response %v, %v; want 101", resp, err)
			}
			want, _ := ws.Negotiate(http.Header{"Sec-Websocket-Extensions": {offer}}, &ws.UpgradeOptions{Deflate: compression})
			if got := resp.Header.Get("Sec-WebSocket-Extensions"); got != want || (want == "") == compression {
				t.Fatalf("Sec-WebSocket-Extensions %q, want %q", got, want)
			}
			if op, p := readServerFrame(t, br); op != ws.OpText || !strings.Contains(string(p), "pusher:connection_established") {
				t.Fatalf("first frame %v %q, want connection_established", op, p)
			}
			if s.handoff.passed.Load() != 0 {
				t.Fatal("the handshake went to net/http")
			}
			if !compression {
				return
			}
			channel := strings.Repeat("z", 100)
			c.Write(compressedClientFrame(t, `{"event":"pusher:subscribe","data":{"channel":"`+channel+`"}}`))
			if op, p := readServerFrame(t, br); op != ws.OpText || !strings.Contains(string(p), "subscription_succeeded") {
				t.Fatalf("after a compressed subscribe: frame %v %q, want subscription_succeeded", op, p)
			}
		})
	}
}

// compressedClientFrame is msg as a client sends it compressed (RFC 7692
// 7.2.1): a masked text frame with RSV1 and a deflated payload.
func compressedClientFrame(t *testing.T, msg string) []byte {
	z := ws.DeflateFrame(ws.AppendFrame(nil, ws.OpText, []byte(msg)))
	if z == nil || z[1] >= 126 {
		t.Fatalf("%q does not compress into a short frame", msg)
	}
	f := ws.AppendMaskedFrame(nil, ws.OpText, z[2:], [4]byte{1, 2, 3, 4})
	f[0] |= 0x40 // RSV1: the payload is compressed
	return f
}

// readServerFrame reads one unmasked, uncompressed frame of under 64 KB.
func readServerFrame(t *testing.T, br *bufio.Reader) (ws.Opcode, []byte) {
	var h [4]byte
	if _, err := io.ReadFull(br, h[:2]); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	n := int(h[1] & 0x7f)
	if n == 126 {
		if _, err := io.ReadFull(br, h[2:4]); err != nil {
			t.Fatalf("reading a frame: %v", err)
		}
		n = int(h[2])<<8 | int(h[3])
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(br, p); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	return ws.Opcode(h[0] & 0x0f), p
}

// TestLoopHandOverIsDecidedOnce: a handshake the loop hands to net/http
// for a refusal in Pusher's terms is decided there alone: counted once,
// and one handshake token spent, so that the next handshake within the
// address's burst of two is still admitted.
func TestLoopHandOverIsDecidedOnce(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) { c.Limits.HandshakesPerSecondPerIP = 2 })
	if got := s.dial(t, "no-such-key").CloseCode(); got != 4001 {
		t.Fatalf("unknown key: close %d, want 4001", got)
	}
	if code, _ := s.handshake(t, ""); code != http.StatusSwitchingProtocols {
		t.Fatalf("the second handshake of a burst of two: %d, want 101", code)
	}
	waitForMetrics(t, s, refusedLine("epoll", admission.App, 1), refusedLine("epoll", admission.IPRate, 0))
}

package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// handshake sends a WebSocket opening handshake for the development app
// from source address from ("" for any) with the extra header lines, and
// returns the response's status and Retry-After. The connection is closed.
func (s *testServer) handshake(t *testing.T, from string, header ...string) (int, string) {
	t.Helper()
	d := net.Dialer{Timeout: waitLimit}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET /app/app-key?protocol=7&client=js&version=8.6.0 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\n" +
		"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
		strings.Join(append(header, ""), "\r\n") + "\r\n"
	c.SetDeadline(time.Now().Add(waitLimit))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// connectFrom opens a working connection from source address from.
func (s *testServer) connectFrom(t *testing.T, from string) *testutil.Client {
	t.Helper()
	return testutil.Connect(t, s.url("app-key"), &ws.DialOptions{LocalAddr: from})
}

// publish sends a signed POST /apps/app-id/events and returns its status.
func (s *testServer) publish(t *testing.T, channel string) int {
	t.Helper()
	body := []byte(fmt.Sprintf(`{"name":"e","channel":%q,"data":"{}"}`, channel))
	path := "/apps/app-id/events"
	q := auth.SignRequest("POST", path, url.Values{}, body, "app-key", "app-secret", time.Now())
	resp, err := http.Post("http://"+s.addr+path+"?"+q.Encode(), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// wantRefused fails unless a handshake from from gets 503 with a
// Retry-After of retry seconds.
func (s *testServer) wantRefused(t *testing.T, from, retry string) {
	t.Helper()
	if code, after := s.handshake(t, from); code != http.StatusServiceUnavailable || after != retry {
		t.Fatalf("handshake from %q: %d, Retry-After %q; want 503, Retry-After %q", from, code, after, retry)
	}
}

// refusedLine is the /metrics sample of refusals for reason r on the
// transport tr ("epoll" or "portable").
func refusedLine(tr string, r admission.Reason, n int) string {
	return fmt.Sprintf(`roost_handshakes_refused_total{reason="%s",transport="%s"} %d`, r, tr, n)
}

// TestMaxConnections: at max_connections the next client gets 503 and
// Retry-After, never 101; health, metrics and the API still answer; a
// closed connection makes room again.
func TestMaxConnections(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.MaxConnections = 20 })
		var clients []*testutil.Client
		for range 20 {
			clients = append(clients, s.connect(t))
		}
		s.wantRefused(t, "", "5")
		for _, path := range []string{"/up", "/ready", "/metrics"} {
			if code, _ := s.get(t, "GET", path); code != http.StatusOK {
				t.Errorf("GET %s at the limit: %d", path, code)
			}
		}
		clients[0].Subscribe("at-the-limit")
		if code := s.publish(t, "at-the-limit"); code != http.StatusOK {
			t.Errorf("API publish at the limit: %d", code)
		}
		clients[0].Expect("e")
		waitForMetrics(t, s, refusedLine(tr, admission.Connections, 1), `roost_connections_limit 20`)
		clients[1].Conn.WriteClose(ws.CloseNormal, "")
		testutil.Eventually(t, waitLimit, "a place to free up", func() bool {
			code, _ := s.handshake(t, "")
			return code == http.StatusSwitchingProtocols
		})
	})
}

// TestMaxConnectionsPerIP: one address is held to its cap while another
// still connects.
func TestMaxConnectionsPerIP(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.MaxConnectionsPerIP = 2 })
		s.connectFrom(t, "127.0.0.2")
		s.connectFrom(t, "127.0.0.2")
		s.wantRefused(t, "127.0.0.2", "5")
		s.connectFrom(t, "127.0.0.3")
		waitForMetrics(t, s, refusedLine(tr, admission.IPConnections, 1))
	})
}

// TestHandshakeRates: past its burst an address is refused with
// Retry-After 1 and another address is not; the node's own rate refuses
// everyone. The bucket arithmetic is tested in package admission; here the
// test only needs one refusal, so it tries until it sees one.
func TestHandshakeRates(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		t.Run("per address", func(t *testing.T) {
			s := startServer(t, tr, func(c *config.Config) { c.Limits.HandshakesPerSecondPerIP = 3 })
			firstRefusal(t, s, "127.0.0.2")
			if code, _ := s.handshake(t, "127.0.0.3"); code != http.StatusSwitchingProtocols {
				t.Fatalf("another address: %d, want 101", code)
			}
			waitForMetrics(t, s, refusedLine(tr, admission.IPRate, 1), refusedLine(tr, admission.Rate, 0))
		})
		t.Run("node", func(t *testing.T) {
			s := startServer(t, tr, func(c *config.Config) { c.Limits.HandshakesPerSecond = 3 })
			firstRefusal(t, s, "127.0.0.2")
			waitForMetrics(t, s, refusedLine(tr, admission.Rate, 1), refusedLine(tr, admission.IPRate, 0))
		})
	})
}

// firstRefusal makes handshakes from one address until one is refused,
// which must be a 503 with Retry-After 1, never a 101 that then fails.
func firstRefusal(t *testing.T, s *testServer, from string) {
	t.Helper()
	for range 100 {
		code, after := s.handshake(t, from)
		if code == http.StatusSwitchingProtocols {
			continue
		}
		if code != http.StatusServiceUnavailable || after != "1" {
			t.Fatalf("refused with %d, Retry-After %q; want 503, 1", code, after)
		}
		return
	}
	t.Fatal("100 handshakes in a row were admitted")
}

// TestMemoryCeiling: over limits.max_memory no handshake is admitted.
func TestMemoryCeiling(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.MaxMemory = 1 })
		s.wantRefused(t, "", "5")
		waitForMetrics(t, s, refusedLine(tr, admission.Memory, 1))
	})
}

// TestAllowedOrigins: an Origin header is checked against the app's
// allowed_origins: exact hosts, *.host wildcards; no header is not checked.
func TestAllowedOrigins(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) { allowedOrigins(t, tr) })
}

func allowedOrigins(t *testing.T, tr string) {
	s := startServer(t, tr, func(c *config.Config) {
		c.Apps[0].AllowedOrigins = []string{"example.com", "*.example.org"}
	})
	for origin, want := range map[string]int{
		"":                            http.StatusSwitchingProtocols,
		"https://example.com":         http.StatusSwitchingProtocols,
		"https://app.example.org":     http.StatusSwitchingProtocols,
		"https://example.org":         http.StatusForbidden,
		"https://evil.test":           http.StatusForbidden,
		"https://example.com.evil.io": http.StatusForbidden,
	} {
		var header []string
		if origin != "" {
			header = append(header, "Origin: "+origin)
		}
		if code, _ := s.handshake(t, "", header...); code != want {
			t.Errorf("Origin %q: %d, want %d", origin, code, want)
		}
	}
	waitForMetrics(t, s, refusedLine(tr, admission.Origin, 3))
}

// TestEveryRefusalReasonIsExposed: /metrics lists every reason, at 0 until
// it happens, so dashboards and alerts can name each one.
func TestEveryRefusalReasonIsExposed(t *testing.T) {
	s := startServer(t, "portable", nil)
	var lines []string
	for r := admission.Connections; r < admission.NumReasons; r++ {
		lines = append(lines, refusedLine("portable", r, 0))
	}
	waitForMetrics(t, s, lines...)
	if code, _ := s.get(t, "GET", "/app/app-key"); code != http.StatusUpgradeRequired {
		t.Fatalf("a plain GET of the WebSocket path: %d, want 426", code)
	}
	s.dial(t, "no-such-key").Expect("pusher:error")
	waitForMetrics(t, s, refusedLine("portable", admission.Invalid, 1), refusedLine("portable", admission.App, 1),
		`roost_handshakes_total{result="refused"} 2`)
}

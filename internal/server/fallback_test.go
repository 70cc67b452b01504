package server

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// fallbackClient speaks pusher-js's xhr_streaming to a test server.
type fallbackClient struct {
	t      *testing.T
	s      *testServer
	http   *http.Client
	base   string
	stream *bufio.Reader
	close  func()
}

// openStream opens an xhr_streaming session of the development app.
func openStream(t *testing.T, s *testServer, sess, origin string) (*fallbackClient, *http.Response) {
	t.Helper()
	c := newFallbackClient(t, s, sess)
	hc := c.http
	req, _ := http.NewRequest("POST", c.base+"xhr_streaming?protocol=7&client=js&version=8.6.0&t=1&n=1", nil)
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	c.stream, c.close = bufio.NewReader(resp.Body), func() { resp.Body.Close() }
	t.Cleanup(c.close)
	return c, resp
}

// newFallbackClient is a client of session sess of the development app,
// over HTTPS when s serves TLS, holding no stream yet.
func newFallbackClient(t *testing.T, s *testServer, sess string) *fallbackClient {
	scheme, hc := "http://", &http.Client{}
	if s.wss {
		scheme = "https://"
		hc.Transport = &http.Transport{TLSClientConfig: s.opts.TLSConfig}
	}
	return &fallbackClient{t: t, s: s, http: hc, base: scheme + s.addr + "/pusher/app/app-key/7/" + sess + "/"}
}

// line reads the stream's next line.
func (c *fallbackClient) line() string {
	c.t.Helper()
	l, err := c.stream.ReadString('\n')
	if err != nil {
		c.t.Fatalf("stream: %v after %q", err, l)
	}
	return strings.TrimSuffix(l, "\n")
}

// lineWith reads lines until one contains want.
func (c *fallbackClient) lineWith(want string) string {
	c.t.Helper()
	for {
		if l := c.line(); strings.Contains(l, want) {
			return l
		}
	}
}

// send posts one client message with xhr_send.
func (c *fallbackClient) send(msg string) {
	c.t.Helper()
	body := `["` + strings.ReplaceAll(msg, `"`, `\"`) + `"]`
	resp, err := c.http.Post(c.base+"xhr_send?t=2&n=2", "application/json", strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		c.t.Fatalf("xhr_send: %d", resp.StatusCode)
	}
}

// TestFallbackStreamOnEveryTransport opens an xhr_streaming session over
// HTTP and HTTPS on both transports, subscribes, receives a publish, is
// counted under its transport label and is told 4200 when the node stops.
func TestFallbackStreamOnEveryTransport(t *testing.T) {
	start := map[string]func(*testing.T) *testServer{
		"epoll":     func(t *testing.T) *testServer { return startServer(t, "epoll", nil) },
		"portable":  func(t *testing.T) *testServer { return startServer(t, "portable", nil) },
		"epoll+tls": func(t *testing.T) *testServer { return startTLSServer(t, "epoll", nil) },
	}
	for name, f := range start {
		t.Run(name, func(t *testing.T) {
			s := f(t)
			c, resp := openStream(t, s, "abcdefgh", "")
			if resp.StatusCode != http.StatusOK || c.line() != "o" {
				t.Fatalf("stream opened with %d", resp.StatusCode)
			}
			c.lineWith("pusher:connection_established")
			c.send(`{"event":"pusher:subscribe","data":{"auth":"","channel":"news"}}`)
			c.lineWith("subscription_succeeded")
			s.Hub().Publish("app-id", hub.Publication{Channels: []string{"news"}, Event: "story", Data: "hello"})
			c.lineWith(`\"event\":\"story\"`)
			if !s.wss {
				waitForMetrics(t, s, `roost_connections{transport="xhr_streaming"} 1`)
			}
			done := make(chan error, 1)
			go func() { done <- s.Server.Shutdown(context.Background()) }()
			if got := c.lineWith("c["); got != `c[4200,"server is shutting down"]` {
				t.Errorf("shutdown closed the session with %s", got)
			}
			if err := <-done; err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	}
}

// TestConsoleNamesFallbackSessions checks that the dashboard's console
// tells a fallback session from a WebSocket.
func TestConsoleNamesFallbackSessions(t *testing.T) {
	s := startServer(t, "epoll", nil)
	res, err := http.Get("http://" + s.addr + "/dashboard/api/console?app=app-id")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	testutil.Eventually(t, waitLimit, "the console attached", func() bool { return s.Hub().Console() != nil })
	c, _ := openStream(t, s, "abcdefgh", "")
	c.lineWith("connection_established")
	lines := bufio.NewScanner(res.Body)
	for lines.Scan() {
		if l := lines.Text(); strings.Contains(l, `"type":"connected"`) {
			if !strings.Contains(l, `"transport":"xhr_streaming"`) {
				t.Errorf("console line %s names no xhr_streaming", l)
			}
			return
		}
	}
	t.Fatal("the console stream ended before the connection")
}

// TestFallbackAdmission checks that a session's first request passes the
// handshake's checks: an Origin the app does not allow is 403, and a node
// at its connection cap answers 503, counted with the handshakes'.
func TestFallbackAdmission(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) {
		c.Apps[0].AllowedOrigins = []string{"app.example"}
		c.Limits.MaxConnections = 1
	})
	if _, resp := openStream(t, s, "abcdefgh", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a forbidden Origin opened a session: %d", resp.StatusCode)
	}
	c, resp := openStream(t, s, "abcdefgh", "https://app.example")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("an allowed Origin: %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	c.lineWith("connection_established")
	if _, resp := openStream(t, s, "bcdefghi", "https://app.example"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a session past max_connections: %d, want 503", resp.StatusCode)
	}
	waitForMetrics(t, s, `roost_handshakes_refused_total{reason="origin",transport="xhr_streaming"} 1`,
		`roost_handshakes_refused_total{reason="connections",transport="xhr_streaming"} 1`)
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// transports are the two ways roost serves connections; protocol tests run on both.
var transports = []string{"epoll", "portable"}

// testServer is a roost node started in-process on 127.0.0.1:0.
type testServer struct {
	*Server
	addr string
}

func startServer(t testing.TB, transport string, edit func(*config.Config)) *testServer {
	t.Helper()
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\ntransport: "+transport+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &testServer{Server: srv, addr: ln.Addr().String()}
}

// client is a raw WebSocket client speaking Pusher messages.
type client struct {
	t        testing.TB
	c        *ws.Client
	socketID string
}

type event struct {
	Event   string          `json:"event"`
	Channel string          `json:"channel"`
	Data    json.RawMessage `json:"data"`
}

func (s *testServer) dial(t testing.TB, key string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := ws.Dial(ctx, "ws://"+s.addr+"/app/"+key+"?protocol=7&client=js&version=8.6.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cl := &client{t: t, c: c}
	return cl
}

// connect dials and reads pusher:connection_established.
func (s *testServer) connect(t testing.TB) *client {
	cl := s.dial(t, "app-key")
	ev := cl.expect("pusher:connection_established")
	var data struct {
		SocketID string `json:"socket_id"`
	}
	cl.decodeData(ev, &data)
	cl.socketID = data.SocketID
	return cl
}

func (c *client) send(format string, args ...any) {
	c.t.Helper()
	if err := c.c.WriteText([]byte(fmt.Sprintf(format, args...))); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next text message, failing after 10 s.
func (c *client) read() event {
	c.t.Helper()
	c.c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
	op, msg, err := c.c.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if op != ws.OpText {
		c.t.Fatalf("got opcode %v (%q), want text", op, msg)
	}
	var ev event
	if err := json.Unmarshal(msg, &ev); err != nil {
		c.t.Fatalf("bad JSON from server: %q", msg)
	}
	return ev
}

func (c *client) expect(name string) event {
	c.t.Helper()
	ev := c.read()
	if ev.Event != name {
		c.t.Fatalf("got %s %s %s, want %s", ev.Event, ev.Channel, ev.Data, name)
	}
	return ev
}

// decodeData unmarshals a server event's data, which is a JSON string
// holding JSON (Pusher's double encoding) or, for some events, an object.
func (c *client) decodeData(ev event, v any) {
	c.t.Helper()
	raw := []byte(ev.Data)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		c.t.Fatalf("data of %s: %v (%s)", ev.Event, err, ev.Data)
	}
}

func (c *client) subscribe(channel string) {
	c.t.Helper()
	c.send(`{"event":"pusher:subscribe","data":{"channel":%q}}`, channel)
	ev := c.expect("pusher_internal:subscription_succeeded")
	if ev.Channel != channel {
		c.t.Fatalf("subscription_succeeded for %q, want %q", ev.Channel, channel)
	}
}

// closeCode reads until the server's close frame and returns its code.
func (c *client) closeCode() ws.CloseCode {
	c.t.Helper()
	c.c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		op, msg, err := c.c.ReadMessage()
		if err != nil {
			c.t.Fatalf("no close frame: %v", err)
		}
		if op == ws.OpClose {
			code, _, err := ws.ParseClose(msg)
			if err != nil {
				c.t.Fatalf("bad close frame %q: %v", msg, err)
			}
			return code
		}
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

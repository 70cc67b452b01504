package server

import (
	"fmt"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

func eachTransport(t *testing.T, f func(t *testing.T, transport string)) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) { f(t, tr) })
	}
}

func TestPublishReachesSubscribers(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a, b := s.connect(t), s.connect(t)
		if !regexp.MustCompile(`^\d+\.\d+$`).MatchString(a.socketID) || a.socketID == b.socketID {
			t.Fatalf("socket ids %q %q", a.socketID, b.socketID)
		}
		a.subscribe("news")
		b.subscribe("news")
		pub := hub.Publication{Channels: []string{"news"}, Event: "update", Data: `{"n":"é"}`, SocketID: a.socketID}
		if err := s.Hub().Publish("app-id", pub); err != nil {
			t.Fatal(err)
		}
		ev := b.expect("update")
		var data map[string]string
		b.decodeData(ev, &data)
		if ev.Channel != "news" || data["n"] != "é" {
			t.Fatalf("got %+v", ev)
		}
		pub.SocketID = ""
		s.Hub().Publish("app-id", pub)
		a.expect("update") // the first one was excluded: a sees only the second
	})
}

func TestPingPongAndErrors(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.send(`{"event":"pusher:ping","data":{}}`)
		c.expect("pusher:pong")
		c.send(`{not json`)
		c.expect("pusher:error")
		c.send(`{"event":"pusher:subscribe","data":{"channel":"bad name!"}}`)
		c.expect("pusher:subscription_error")
		c.subscribe("still-works")
		if err := c.c.WritePing([]byte("hi")); err != nil {
			t.Fatal(err)
		}
		c.c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
		op, msg, err := c.c.ReadMessage()
		if err != nil || op != ws.OpPong || string(msg) != "hi" {
			t.Fatalf("ping frame answered with %v %q %v", op, msg, err)
		}
	})
}

func TestRefusals(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) {
			off := false
			c.Apps = append(c.Apps, config.App{ID: "off", Key: "off-key", Secret: "s", Enabled: &off})
		})
		for key, want := range map[string]pusher.Code{"nope": pusher.AppNotFound, "off-key": pusher.AppDisabled} {
			c := s.dial(t, key)
			c.expect("pusher:error")
			if got := c.closeCode(); got != ws.CloseCode(want) {
				t.Errorf("key %q: close %d, want %d", key, got, want)
			}
		}
	})
}

func TestServerPingThenPongTimeout(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) {
			c.ActivityTimeout = time.Second
			c.PongWait = time.Second
		})
		c := s.connect(t)
		c.expect("pusher:ping")
		if got := c.closeCode(); got != ws.CloseCode(pusher.PongTimeout) {
			t.Fatalf("close %d, want 4201", got)
		}
	})
}

func TestProtocolErrorsClose(t *testing.T) {
	cases := []struct {
		name  string
		frame []byte
		want  ws.CloseCode
	}{
		{"binary", ws.AppendMaskedFrame(nil, ws.OpBinary, []byte{1}, [4]byte{1, 2, 3, 4}), ws.CloseUnsupportedData},
		{"unmasked", ws.AppendFrame(nil, ws.OpText, []byte("{}")), ws.CloseProtocolError},
		{"too big", ws.AppendMaskedFrame(nil, ws.OpText, make([]byte, 70000), [4]byte{1, 2, 3, 4}), ws.CloseTooBig},
	}
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		for _, tc := range cases {
			c := s.connect(t)
			if err := c.c.WriteRaw(tc.frame); err != nil {
				t.Fatal(err)
			}
			if got := c.closeCode(); got != tc.want {
				t.Errorf("%s: close %d, want %d", tc.name, got, tc.want)
			}
		}
	})
}

func TestShutdownSays4200(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.subscribe("x")
		go s.Shutdown(t.Context())
		ev := c.expect("pusher:error")
		if !contains(string(ev.Data), "4200") {
			t.Fatalf("shutdown error %s", ev.Data)
		}
		if got := c.closeCode(); got != 4200 {
			t.Fatalf("close %d, want 4200", got)
		}
	})
}

// TestIdleConnectionsOwnNoGoroutine is the structural promise of the epoll
// transport: goroutines do not grow with idle connections.
func TestIdleConnectionsOwnNoGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 5,000 connections")
	}
	s := startServer(t, "epoll", nil)
	open := func(n int) {
		for i := 0; i < n; i++ {
			c := s.connect(t)
			c.subscribe(fmt.Sprint("channel-", i%50))
			c.send(`{"event":"pusher:ping","data":{}}`)
			c.expect("pusher:pong")
		}
	}
	open(100)
	base := settledGoroutines(t)
	open(4900)
	waitFor(t, "5,000 connections", func() bool { return s.Connections() == 5000 })
	if got := settledGoroutines(t); got > base {
		t.Fatalf("goroutines grew from %d (100 connections) to %d (5,000)", base, got)
	}
}

// settledGoroutines waits for handshake goroutines to finish and returns
// the goroutine count.
func settledGoroutines(t *testing.T) int {
	prev := -1
	for i := 0; i < 200; i++ {
		n := runtime.NumGoroutine()
		if n == prev {
			return n
		}
		prev = n
		time.Sleep(20 * time.Millisecond)
	}
	return prev
}

package server

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

func eachTransport(t *testing.T, f func(t *testing.T, transport string)) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) { f(t, tr) })
	}
}

// eachFanoutTransport runs f on each transport and on epoll+uring, whose
// loops write publishes differently (and nothing else).
func eachFanoutTransport(t *testing.T, f func(t *testing.T, transport string)) {
	for _, tr := range append(slices.Clone(transports), config.TransportEpollUring) {
		t.Run(tr, func(t *testing.T) { f(t, tr) })
	}
}

func TestPublishReachesSubscribers(t *testing.T) {
	eachFanoutTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		a, b := s.connect(t), s.connect(t)
		if !regexp.MustCompile(`^\d+\.\d+$`).MatchString(a.SocketID) || a.SocketID == b.SocketID {
			t.Fatalf("socket ids %q %q", a.SocketID, b.SocketID)
		}
		a.Subscribe("news")
		b.Subscribe("news")
		pub := hub.Publication{Channels: []string{"news"}, Event: "update", Data: `{"n":"é"}`, SocketID: a.SocketID}
		if err := s.Hub().Publish("app-id", pub); err != nil {
			t.Fatal(err)
		}
		ev := b.Expect("update")
		var data map[string]string
		b.DecodeData(ev, &data)
		if ev.Channel != "news" || data["n"] != "é" {
			t.Fatalf("got %+v", ev)
		}
		pub.SocketID = ""
		s.Hub().Publish("app-id", pub)
		a.Expect("update") // the first one was excluded: a sees only the second
	})
}

func TestPingPongAndErrors(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.Ping()
		c.Send(`{not json`)
		c.Expect("pusher:error")
		c.Send(`{"event":"pusher:subscribe","data":{"channel":"bad name!"}}`)
		c.Expect("pusher:subscription_error")
		c.Subscribe("still-works")
		if err := c.Conn.WritePing([]byte("hi")); err != nil {
			t.Fatal(err)
		}
		c.Conn.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
		op, msg, err := c.Conn.ReadMessage()
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
			c.Expect("pusher:error")
			if got := c.CloseCode(); got != ws.CloseCode(want) {
				t.Errorf("key %q: close %d, want %d", key, got, want)
			}
		}
	})
}

// TestEpollPingThenPongTimeout runs the keepalive of the epoll transport
// in real time, with one-second timeouts: its loops wait in epoll_wait,
// outside any synctest bubble. TestSilentClientIsPingedThenClosed checks
// the portable transport's exact figures on a fake clock.
func TestEpollPingThenPongTimeout(t *testing.T) {
	s := startServer(t, "epoll", func(c *config.Config) {
		c.ActivityTimeout = time.Second
		c.PongWait = time.Second
	})
	c := s.connect(t)
	c.Expect("pusher:ping")
	if got := c.CloseCode(); got != ws.CloseCode(pusher.PongTimeout) {
		t.Fatalf("close %d, want 4201", got)
	}
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
			if err := c.Conn.WriteRaw(tc.frame); err != nil {
				t.Fatal(err)
			}
			if got := c.CloseCode(); got != tc.want {
				t.Errorf("%s: close %d, want %d", tc.name, got, tc.want)
			}
		}
	})
}

func TestShutdownSays4200(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, nil)
		c := s.connect(t)
		c.Subscribe("x")
		go s.Shutdown(t.Context())
		ev := c.Expect("pusher:error")
		if !contains(string(ev.Data), "4200") {
			t.Fatalf("shutdown error %s", ev.Data)
		}
		if got := c.CloseCode(); got != 4200 {
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
			c.Subscribe(fmt.Sprint("channel-", i%50))
			c.Ping()
		}
	}
	open(100)
	base := settledGoroutines()
	open(4900)
	testutil.Eventually(t, waitLimit, "5,000 connections", func() bool { return s.Connections() == 5000 })
	var got int
	if !testutil.Poll(waitLimit, func() bool { got = runtime.NumGoroutine(); return got <= base }) {
		t.Fatalf("goroutines grew from %d (100 connections) to %d (5,000)", base, got)
	}
}

// settledGoroutines returns the goroutine count once two samples in a row
// agree, when the handshake goroutines of new connections have finished.
func settledGoroutines() int {
	prev := -1
	testutil.Poll(waitLimit, func() bool {
		n := runtime.NumGoroutine()
		settled := n == prev
		prev = n
		return settled
	})
	return prev
}

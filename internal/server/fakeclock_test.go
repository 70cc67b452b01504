package server

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// The tests in this file run the portable transport over in-memory pipes
// in a synctest bubble, so its timeouts run on a fake clock: they take no
// real time and their figures are exact. The epoll transport needs real
// sockets; its timeouts are tested in real time elsewhere.

// patient connects a client that waits as long as a test needs.
func (s *testServer) patient(t *testing.T) *testutil.Client {
	c := s.connect(t)
	c.Timeout = time.Hour
	return c
}

// TestSilentClientIsPingedThenClosed: after the activity timeout of
// silence the server sends pusher:ping, and after the pong wait with no
// answer it closes with 4201 (Pusher docs, "Pusher Channels Protocol",
// "Ping and pong messages").
func TestSilentClientIsPingedThenClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		activity, pongWait := s.cfg.ActivityTimeout, s.cfg.PongWait
		c := s.patient(t)
		start := time.Now()
		if f, ok := c.Await(activity, testutil.Named("pusher:ping")); ok {
			t.Fatalf("%v before the activity timeout of %v", f, activity)
		}
		c.Expect("pusher:ping")
		pinged := time.Since(start)
		if pinged > activity+activity/5 {
			t.Fatalf("pinged after %v of silence, want about the activity timeout of %v", pinged, activity)
		}
		if got := c.CloseCode(); got != ws.CloseCode(pusher.PongTimeout) {
			t.Fatalf("close code %d, want 4201", got)
		}
		if closed := time.Since(start) - pinged; closed != pongWait {
			t.Fatalf("closed %v after the ping, want the pong wait of %v", closed, pongWait)
		}
	})
}

// TestClientPingsKeepTheServerQuiet: a client that pings after every
// activity timeout of silence, as pusher-js does, is never pinged by the
// server and never closed.
func TestClientPingsKeepTheServerQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		activity := s.cfg.ActivityTimeout
		c := s.patient(t)
		for range 10 {
			if f, ok := c.Await(activity, func(testutil.Frame) bool { return true }); ok {
				t.Fatalf("got %v from the server while the client kept to its schedule", f)
			}
			c.Ping()
		}
	})
}

// TestAnsweredPingKeepsTheConnection: a client that answers the server's
// pusher:ping stays connected past the pong wait and is pinged again
// after the same silence as before.
func TestAnsweredPingKeepsTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		c := s.patient(t)
		start := time.Now()
		c.Expect("pusher:ping")
		first := time.Since(start)
		c.Send(`{"event":"pusher:pong","data":{}}`)
		answered := time.Now()
		c.Expect("pusher:ping") // a close frame instead fails the test
		if again := time.Since(answered); again != first {
			t.Fatalf("pinged again %v after the answer, want %v as after connecting", again, first)
		}
	})
}

// TestBlockedWriterTimesOutOnTime: a client that stops reading is closed
// once one write has been blocked for the write timeout, not before.
func TestBlockedWriterTimesOutOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		c := s.patient(t)
		c.Subscribe("firehose")
		subscribed := func() bool { return channelOf(s, "firehose").Occupied }
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: "{}"})
		// The client reads no more; a pipe buffers nothing, so the write blocks.
		time.Sleep(s.cfg.Limits.WriteTimeout - time.Millisecond)
		synctest.Wait()
		if !subscribed() {
			t.Fatal("closed before the write timeout")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if subscribed() {
			t.Fatalf("still subscribed once the write had been blocked for %v", s.cfg.Limits.WriteTimeout)
		}
	})
}

// TestSilentHandshakeIsDropped: a connection that sends no HTTP request is
// closed after the handshake timeout.
func TestSilentHandshakeIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := startPipeServer(t, nil)
		conn, err := s.opts.DialContext(t.Context(), "tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		if n, err := conn.Read(make([]byte, 1)); err == nil {
			t.Fatalf("read %d bytes from the server before sending a request", n)
		}
		if waited := time.Since(start); waited != s.cfg.Limits.HandshakeTimeout {
			t.Fatalf("dropped after %v, want the handshake timeout of %v", waited, s.cfg.Limits.HandshakeTimeout)
		}
	})
}

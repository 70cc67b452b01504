package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// A flood is one connection writing a burst of messages at once while a
// canary connection served by the same loop keeps pinging; what the flood
// costs the others is the canary's pong delay during the flood against its
// delay just before, measured in the same run.

// floodResult is what runFlood measured.
type floodResult struct {
	took     time.Duration   // from the burst's first byte to the server's last reply
	baseline []time.Duration // canary pong delays before the flood
	during   []time.Duration // canary pong delays while the server worked through it
}

// oneLoop serves every connection from a single epoll loop, so that the
// flooder and the canary share it.
func oneLoop(c *config.Config) { c.Loops = 1 }

// burst encodes n client messages, msg(i), as masked frames in one buffer,
// followed by a pusher:ping whose pong marks the end of the burst.
func burst(n int, msg func(i int) string) []byte {
	var b []byte
	for i := range n {
		b = ws.AppendMaskedFrame(b, ws.OpText, []byte(msg(i)), [4]byte{1, 2, 3, 4})
	}
	return ws.AppendMaskedFrame(b, ws.OpText, []byte(`{"event":"pusher:ping","data":{}}`), [4]byte{5, 6, 7, 8})
}

// subscribeBurst is n subscriptions to distinct public channels.
func subscribeBurst(n int) []byte {
	return burst(n, func(i int) string {
		return fmt.Sprintf(`{"event":"pusher:subscribe","data":{"channel":"flood-%06d"}}`, i)
	})
}

// runFlood connects a canary and a flooder; prepare may subscribe the
// flooder before its burst. The flooder then writes the burst (its frames
// and the closing ping from burst) while the canary pings in turn.
func runFlood(tb testing.TB, srv *testServer, prepare func(*testutil.Client), frames func(*testutil.Client) []byte, wait time.Duration) floodResult {
	tb.Helper()
	canary, flooder := srv.connect(tb), srv.connect(tb)
	if prepare != nil {
		prepare(flooder)
	}
	data := frames(flooder)
	var r floodResult
	for range 50 {
		r.baseline = append(r.baseline, pingDelay(canary))
	}
	read, wrote := make(chan error, 1), make(chan error, 1)
	start := time.Now()
	go func() { read <- awaitPong(flooder.Conn, start.Add(wait)) }()
	go func() { wrote <- flooder.Conn.WriteRaw(data) }()
	for {
		select {
		case err := <-read:
			r.took = time.Since(start)
			if err != nil {
				tb.Fatalf("flooder: %v", err)
			}
			if err := <-wrote; err != nil {
				tb.Fatalf("flooder: write: %v", err)
			}
			return r
		default:
			r.during = append(r.during, pingDelay(canary))
		}
	}
}

// pingDelay is how long the canary waits for its pusher:pong.
func pingDelay(c *testutil.Client) time.Duration {
	start := time.Now()
	c.Ping()
	return time.Since(start)
}

// awaitPong reads the flooder's replies until pusher:pong, the answer to
// the burst's last message.
func awaitPong(c *ws.Client, deadline time.Time) error {
	c.NetConn().SetReadDeadline(deadline)
	for {
		op, msg, err := c.ReadMessage()
		if err != nil {
			return err
		}
		var f struct{ Event string }
		if op == ws.OpText && json.Unmarshal(msg, &f) == nil && f.Event == "pusher:pong" {
			return nil
		}
		if op == ws.OpClose {
			return fmt.Errorf("closed by the server: %q", msg)
		}
	}
}

// p99 is the 99th percentile of d.
func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)*99)/100]
}

// report adds r's figures to a benchmark's output.
func (r floodResult) report(b *testing.B) {
	b.ReportMetric(float64(r.took.Microseconds())/1000, "flood-ms")
	b.ReportMetric(float64(p99(r.baseline).Microseconds())/1000, "canary-base-p99-ms")
	b.ReportMetric(float64(p99(r.during).Microseconds())/1000, "canary-flood-p99-ms")
	b.ReportMetric(float64(slices.Max(r.during).Microseconds())/1000, "canary-flood-max-ms")
}

// BenchmarkFloodSubscribe40k: one connection asks for 40,000
// subscriptions in one burst while a canary on its loop pings.
func BenchmarkFloodSubscribe40k(b *testing.B) {
	for range b.N {
		srv := startServer(b, "epoll", oneLoop)
		r := runFlood(b, srv, nil, func(*testutil.Client) []byte { return subscribeBurst(40000) }, 10*time.Minute)
		r.report(b)
	}
}

// BenchmarkFloodAllowed: one connection sends work it is allowed to ask
// for in one burst, 99 subscriptions and 5,000 client events, while a
// canary on its loop pings.
func BenchmarkFloodAllowed(b *testing.B) {
	for range b.N {
		srv := startServer(b, "epoll", oneLoop)
		join := func(c *testutil.Client) { c.SubscribeWith("private-flood", sign(c, "private-flood", ""), "") }
		r := runFlood(b, srv, join, func(*testutil.Client) []byte { return allowedBurst(99, 5000) }, time.Minute)
		r.report(b)
	}
}

// allowedBurst is subs public subscriptions followed by events client
// events on private-flood.
func allowedBurst(subs, events int) []byte {
	return burst(subs+events, func(i int) string {
		if i < subs {
			return fmt.Sprintf(`{"event":"pusher:subscribe","data":{"channel":"flood-%06d"}}`, i)
		}
		return fmt.Sprintf(`{"event":"client-flood","channel":"private-flood","data":{"n":%d}}`, i)
	})
}

// TestFloodDoesNotStallLoop: while one connection works through a burst of
// client events, all allowed, a canary served by the same loop is answered
// between slices of the burst, not after it. The canary is subscribed to
// the burst's channel, so the loop writes the burst's events and the
// canary's pongs into one socket in the order it does the work: the test
// reads that order, not a clock. The canary pings again as soon as each
// pong arrives and must get minPongs of them among the burst's events.
// A loop without a per-turn bound reads the flooder until its socket runs
// dry, and the canary's first ping waits for most of the burst. Delays in
// time are reported by the Flood benchmarks.
func TestFloodDoesNotStallLoop(t *testing.T) {
	const events, minPongs = 5000, 10
	srv := startServer(t, "epoll", func(c *config.Config) {
		oneLoop(c)
		c.Limits.ClientEventsPerSecond = 2 * events
	})
	canary, flooder := srv.connect(t), srv.connect(t)
	for _, c := range []*testutil.Client{canary, flooder} {
		c.SubscribeWith("private-flood", sign(c, "private-flood", ""), "")
	}
	wrote := make(chan error, 1)
	go func() { wrote <- flooder.Conn.WriteRaw(clientEventBurst(events)) }()
	pongs := pongsAmong(t, canary, events)
	if err := <-wrote; err != nil {
		t.Fatalf("flooder: write: %v", err)
	}
	t.Logf("the canary got %d pongs among %d events", pongs, events)
	if pongs < minPongs {
		t.Fatalf("the canary got %d pongs among the burst's %d events, want >= %d: the loop served the burst in one go", pongs, events, minPongs)
	}
}

// clientEventBurst is n client events on private-flood.
func clientEventBurst(n int) []byte {
	return burst(n, func(i int) string {
		return fmt.Sprintf(`{"event":"client-flood","channel":"private-flood","data":{"n":%d}}`, i)
	})
}

// pongsAmong reads the canary's frames until the last of the burst's n
// events, pinging from the first one on whenever no ping is outstanding,
// and counts the pongs that arrived before that last event.
func pongsAmong(t *testing.T, canary *testutil.Client, n int) int {
	t.Helper()
	seen, pongs, waiting := 0, 0, false
	for seen < n {
		switch f := canary.Read(); f.Event {
		case "client-flood":
			seen++
		case "pusher:pong":
			pongs, waiting = pongs+1, false
		default:
			t.Fatalf("canary: unexpected %s", canary.Describe())
		}
		if !waiting && seen < n {
			canary.Send(`{"event":"pusher:ping","data":{}}`)
			waiting = true
		}
	}
	return pongs
}

// BenchmarkFloodSubscribe10kAllowed: one connection subscribes to 10,000
// channels in one burst, the most limits.max_subscriptions_per_connection
// allows, while a canary on its loop pings.
func BenchmarkFloodSubscribe10kAllowed(b *testing.B) {
	for range b.N {
		srv := startServer(b, "epoll", func(c *config.Config) {
			oneLoop(c)
			c.Limits.MaxSubscriptionsPerConnection = 10000
		})
		r := runFlood(b, srv, nil, func(*testutil.Client) []byte { return subscribeBurst(10000) }, time.Minute)
		r.report(b)
	}
}

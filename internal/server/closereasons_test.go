package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// closeCase ends one connection for one reason, then names the label value
// of roost_connections_closed_total it must be counted under.
type closeCase struct {
	reason string
	edit   func(*config.Config)
	end    func(t *testing.T, s *testServer, c *testutil.Client)
}

var closeCases = []closeCase{
	{"client", nil, func(t *testing.T, _ *testServer, c *testutil.Client) {
		c.Conn.WriteClose(ws.CloseNormal, "")
	}},
	{"timeout", func(c *config.Config) { c.ActivityTimeout, c.PongWait = time.Second, time.Second },
		func(t *testing.T, _ *testServer, c *testutil.Client) {
			c.Expect("pusher:ping") // and leave it unanswered
			answerClose(t, c, transport.PongTimeoutCode)
		}},
	{"slow_consumer", func(c *config.Config) {
		// A slow consumer is sent 4100 after its backlog and released once
		// its writes stay blocked for the write timeout.
		c.Limits.WriteBacklog, c.Limits.WriteTimeout = 64<<10, time.Second
	},
		func(t *testing.T, s *testServer, c *testutil.Client) {
			c.Subscribe("firehose")
			data := strings.Repeat("x", 8<<10)
			// The client never reads; the kernel buffers fill, then the backlog.
			testutil.Eventually(t, waitLimit, "the slow consumer to be closed", func() bool {
				s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
				return !channelOf(s, "firehose").Occupied
			})
		}},
	{"error", nil, func(t *testing.T, _ *testServer, c *testutil.Client) {
		if err := c.Conn.WriteRaw(ws.AppendFrame(nil, ws.OpText, []byte("{}"))); err != nil { // unmasked
			t.Fatal(err)
		}
		if got := c.CloseCode(); got != ws.CloseProtocolError {
			t.Fatalf("close %d, want %d", got, ws.CloseProtocolError)
		}
	}},
	{"server", nil, func(t *testing.T, _ *testServer, c *testutil.Client) {
		c.Send(`{"event":"pusher:signin","data":{"auth":"app-key:bad","user_data":"{\"id\":\"u\"}"}}`)
		c.Expect("pusher:error")
		answerClose(t, c, ws.CloseCode(pusher.Unauthorized))
	}},
}

// answerClose reads the server's close frame, checks its code and answers
// it, completing the close handshake as a well-behaved client does: the
// answer must not turn the server's close into the client's.
func answerClose(t *testing.T, c *testutil.Client, want ws.CloseCode) {
	t.Helper()
	if got := c.CloseCode(); got != want {
		t.Fatalf("close %d, want %d", got, want)
	}
	c.Conn.WriteClose(want, "")
}

// TestCloseReasonsInMetrics ends a connection for each reason on each
// transport and reads the reason back from /metrics: that one reason is
// counted, and no other.
func TestCloseReasonsInMetrics(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		for _, cc := range closeCases {
			t.Run(cc.reason, func(t *testing.T) {
				s := startServer(t, tr, cc.edit)
				cc.end(t, s, s.connect(t))
				want := []string{fmt.Sprintf(`roost_connections{transport=%q} 0`, tr)}
				for _, other := range closeCases {
					n := 0
					if other.reason == cc.reason {
						n = 1
					}
					want = append(want, fmt.Sprintf(`roost_connections_closed_total{reason=%q,transport=%q} %d`, other.reason, tr, n))
				}
				waitForMetrics(t, s, want...)
			})
		}
	})
}

package server

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// logBuffer is a log destination tests can read while the server writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLoggedServer is startServer with the server's log kept.
func startLoggedServer(t *testing.T, tr string, edit func(*config.Config)) (*testServer, *logBuffer) {
	t.Helper()
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\ntransport: "+tr+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	edit(&cfg)
	logs := &logBuffer{}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, srv, ln, nil), logs
}

// TestSlowConsumerGetsOverCapacity: a client that stops reading while
// large events are published is closed with 4100 (pusher-js backs off and
// reconnects), which it reads once it reads again; the close is logged
// with the backlog and counted as slow_consumer.
func TestSlowConsumerGetsOverCapacity(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s, logs := startLoggedServer(t, tr, func(c *config.Config) { c.Limits.WriteBacklog = 64 << 10 })
		slow := s.connect(t)
		slow.Subscribe("firehose")
		data := strings.Repeat("x", 8<<10)
		testutil.Eventually(t, waitLimit, "the slow consumer to be closed", func() bool {
			for range 16 {
				s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
			}
			return strings.Contains(logs.String(), "slow consumer closed")
		})
		if !strings.Contains(logs.String(), "backlog=") {
			t.Errorf("the log does not give the backlog:\n%s", logs)
		}
		if got := slow.CloseCode(); got != ws.CloseCode(pusher.OverCapacity) {
			t.Fatalf("close code %d, want %d", got, pusher.OverCapacity)
		}
		slow.Conn.WriteClose(ws.CloseCode(pusher.OverCapacity), "")
		waitForMetrics(t, s, `roost_connections_closed_total{reason="slow_consumer",transport="`+tr+`"} 1`)
	})
}

package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// get fetches path from the test server and returns the status and body.
func (s *testServer) get(t *testing.T, method, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+s.addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// hasSeries reports whether a /metrics body holds the exact sample line.
func hasSeries(body, line string) bool { return strings.Contains(body, "\n"+line+"\n") }

// TestMetricsCountConnections checks that /metrics follows a connection's
// life on each transport: open, subscribed, refused handshakes, closed.
func TestMetricsCountConnections(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s := startServer(t, tr, nil)
			cl := s.connect(t)
			cl.Subscribe("metrics-test")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if bad, err := ws.Dial(ctx, "ws://"+s.addr+"/app/no-such-key?protocol=7", nil); err == nil {
				bad.Close()
			}
			waitForMetrics(t, s, `roost_connections{transport="`+tr+`"} 1`, `roost_subscriptions 1`,
				`roost_channels 1`, `roost_handshakes_total{result="refused"} 1`,
				`roost_handshakes_total{result="accepted"} 1`)
			cl.Conn.WriteClose(ws.CloseNormal, "")
			waitForMetrics(t, s, `roost_connections{transport="`+tr+`"} 0`,
				`roost_connections_closed_total{reason="client",transport="`+tr+`"} 1`, `roost_subscriptions 0`)
		})
	}
}

// waitForMetrics polls /metrics until every line is present.
func waitForMetrics(t *testing.T, s *testServer, lines ...string) {
	t.Helper()
	var body string
	testutil.Eventually(t, waitLimit, "metrics "+strings.Join(lines, ", "), func() bool {
		_, body = s.get(t, "GET", "/metrics")
		for _, l := range lines {
			if !hasSeries(body, l) {
				return false
			}
		}
		return true
	})
}

func TestDebugEndpointsOffByDefault(t *testing.T) {
	s := startServer(t, "epoll", nil)
	if code, _ := s.get(t, "POST", "/debug/gc"); code != http.StatusNotFound {
		t.Fatalf("POST /debug/gc without %s: %d, want 404", DebugEnv, code)
	}
}

func TestDebugGC(t *testing.T) {
	t.Setenv(DebugEnv, "endpoints")
	s := startServer(t, "epoll", nil)
	code, body := s.get(t, "POST", "/debug/gc")
	var r GCReport
	if code != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || r.HeapInuse == 0 || r.Goroutines == 0 {
		t.Fatalf("POST /debug/gc: %d %s", code, body)
	}
	if code, _ := s.get(t, "GET", "/debug/pprof/"); code != http.StatusOK {
		t.Fatalf("GET /debug/pprof/: %d", code)
	}
}

func TestDebugEnabled(t *testing.T) {
	for v, want := range map[string]bool{"": false, "endpoints": true, "x,endpoints": true, "endpoint": false} {
		if got := debugEnabled(v); got != want {
			t.Errorf("debugEnabled(%q) = %v, want %v", v, got, want)
		}
	}
}

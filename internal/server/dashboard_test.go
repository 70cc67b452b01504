package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// TestDashboardNeedsATokenExceptForTheDevelopmentApp: /dashboard is served
// without a password only for the development app on loopback; with real
// apps only once admin.token is set, and then never without it; and
// dashboard.enabled: false turns it off.
func TestDashboardNeedsATokenExceptForTheDevelopmentApp(t *testing.T) {
	const token = "dashboard-admin-token-0123"
	real := []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=private"}
	for _, tc := range []struct {
		name string
		env  []string
		want int // status of GET /dashboard/api/session without a token
	}{
		{"development app on loopback", []string{"ROOST_ADDR=127.0.0.1:0"}, http.StatusOK},
		{"development app, switched off", []string{"ROOST_ADDR=127.0.0.1:0", "ROOST_DASHBOARD=false"}, http.StatusNotFound},
		{"real app on loopback without a token", append([]string{"ROOST_ADDR=127.0.0.1:0"}, real...), http.StatusNotFound},
		{"real app on every address without a token", append([]string{"ROOST_ADDR=0.0.0.0:0"}, real...), http.StatusNotFound},
		{"real app with a token", append([]string{"ROOST_ADDR=0.0.0.0:0", "ROOST_ADMIN_TOKEN=" + token}, real...), http.StatusUnauthorized},
		{"development app with a token", []string{"ROOST_ADDR=127.0.0.1:0", "ROOST_ADMIN_TOKEN=" + token}, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse(nil, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			ln, err := srv.Listen()
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(t.Context(), ln)
			t.Cleanup(func() { srv.Shutdown(t.Context()) })
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			base := "http://127.0.0.1:" + port + "/dashboard/api/session"
			if got := status(t, base, ""); got != tc.want {
				t.Errorf("without a token: %d, want %d", got, tc.want)
			}
			if tc.want == http.StatusUnauthorized {
				if got := status(t, base, "Bearer "+token); got != http.StatusOK {
					t.Errorf("with the token: %d, want 200", got)
				}
			}
			if on := srv.DashboardOn(); on != (tc.want != http.StatusNotFound) {
				t.Errorf("DashboardOn() = %v", on)
			}
		})
	}
}

func status(t *testing.T, url, auth string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestShutdownEndsConsoleStreams: an open debug console, a stream that
// never ends by itself, does not hold a graceful shutdown open.
func TestShutdownEndsConsoleStreams(t *testing.T) {
	cfg, err := config.Parse(nil, []string{"ROOST_ADDR=127.0.0.1:0", "ROOST_SHUTDOWN_TIMEOUT=30s"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(t.Context(), ln)
	res, err := http.Get("http://" + ln.Addr().String() + "/dashboard/api/console?app=app-id")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || srv.Hub().Console() == nil {
		t.Fatalf("console: %d, attached %v", res.StatusCode, srv.Hub().Console() != nil)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown with a console open: %v", err)
	}
	if srv.Hub().Console() != nil {
		t.Error("the console is still attached after shutdown")
	}
}

// TestConsoleSeesConnectionsOnEveryTransport: the debug console shows a
// real connection open, subscribe, and close with the transport's reason,
// on both transports.
func TestConsoleSeesConnectionsOnEveryTransport(t *testing.T) {
	for _, transport := range []string{"epoll", "portable"} {
		t.Run(transport, func(t *testing.T) {
			if transport == "epoll" && !netpoll.Supported {
				t.Skip("no epoll here")
			}
			s := startServer(t, transport, nil)
			res, err := http.Get("http://" + s.addr + "/dashboard/api/console?app=app-id")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			lines := bufio.NewScanner(res.Body)
			next := func(want string) string {
				t.Helper()
				for lines.Scan() {
					if l := lines.Text(); strings.HasPrefix(l, "data: {\"time\"") {
						if !strings.Contains(l, want) {
							t.Errorf("console line %s, want %s", l, want)
						}
						return l
					}
				}
				t.Fatalf("the console stream ended before %s", want)
				return ""
			}
			testutil.Eventually(t, waitLimit, "the console attached", func() bool { return s.Hub().Console() != nil })
			c := s.connect(t)
			next(`"transport":"websocket"`)
			c.Subscribe("news")
			next(`"type":"subscribed","app":"app-id","channel":"news"`)
			c.Conn.WriteClose(ws.CloseNormal, "bye")
			next(`"type":"unsubscribed","app":"app-id","channel":"news"`)
			if l := next(`"type":"disconnected","app":"app-id","socket_id":"`); !strings.Contains(l, `"reason":"client"`) {
				t.Errorf("close reason: %s, want client", l)
			}
		})
	}
}

// TestDashboardShowsTheWebhookCountersOfMetrics: with a receiver that
// answers 500, the overview's webhook figures of the app grow as /metrics'
// do (failed requests, retries, the age of the waiting event), then show
// the event dropped after retry_for and nothing left waiting.
func TestDashboardShowsTheWebhookCountersOfMetrics(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(refusing.Close)
	s := startServer(t, "epoll", func(c *config.Config) {
		c.Apps[0].Webhooks = []config.Webhook{{URL: refusing.URL, EventTypes: []string{"channel_occupied"}}}
		c.Webhooks.BatchWait = time.Millisecond
		c.Webhooks.RetryFor = 2 * time.Second
		c.Dashboard.RequestsPerSecond = 10000 // the test polls the overview
	})
	s.connect(t).Subscribe("hooked")
	var last map[string]any
	shows := func(what string, ok func(w map[string]any) bool) {
		t.Helper()
		testutil.Eventually(t, waitLimit, "the overview showing "+what, func() bool {
			last = overviewWebhook(t, s, "app-id")
			return last != nil && ok(last)
		})
	}
	num := func(w map[string]any, k string) float64 { f, _ := w[k].(float64); return f }
	shows("failed requests, a retry and the event's age", func(w map[string]any) bool {
		return num(w, "failed") >= 2 && num(w, "retried") >= 1 && num(w, "oldest_s") > 0 && num(w, "sent") == 0
	})
	waitForMetrics(t, s, `roost_webhook_sent_total{app="app-id"} 0`)
	shows("the event dropped after retry_for", func(w map[string]any) bool {
		d, _ := w["dropped"].(map[string]any)
		return d["retry_expired"] == 1.0 && num(w, "oldest_s") == 0 && num(w, "queued") == 0
	})
	waitForMetrics(t, s, `roost_webhook_dropped_total{app="app-id",reason="retry_expired"} 1`)
}

// overviewWebhook returns the overview's webhook figures of app, or nil.
func overviewWebhook(t *testing.T, s *testServer, app string) map[string]any {
	t.Helper()
	code, body := s.get(t, "GET", "/dashboard/api/overview")
	if code != http.StatusOK {
		t.Fatalf("overview: %d %s", code, body)
	}
	var o struct{ Webhooks []map[string]any }
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	for _, w := range o.Webhooks {
		if w["app"] == app {
			return w
		}
	}
	return nil
}

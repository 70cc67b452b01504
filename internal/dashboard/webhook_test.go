package dashboard

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/webhook"
)

// TestTheConsoleShowsWebhookRequests sends real webhooks, to a backend that
// answers and to an address nobody listens on, and checks the console
// shows each request without the credentials of its URL.
func TestTheConsoleShowsWebhookRequests(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer backend.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://user:" + hookSecret + "@" + ln.Addr().String() + "/hook?token=" + hookSecret
	ln.Close()
	cfg, err := config.Parse([]byte(`
webhooks: {batch_wait: 1ms, retry_for: 1s}
apps:
  - {id: shop, key: k, secret: `+secret+`, webhooks: [{url: "`+backend.URL+`/ok"}, {url: "`+closed+`"}]}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, token, false)
	w := webhook.New(webhook.Options{Apps: cfg.Apps, Settings: cfg.Webhooks, Node: "1",
		Delivered: f.d.console.WebhookDelivered, Logger: slog.New(slog.DiscardHandler)})
	w.Start(nil, nil)
	defer w.Close(context.Background())

	events := f.stream(t, "app=shop")
	w.ChannelOccupied("shop", "a")
	got := map[string]Event{}
	for len(got) < 2 {
		e := next(t, events)
		got[e.Type] = e
	}
	if e := got[typeWebhookSent]; e.URL != backend.URL+"/ok" || e.Events != 1 {
		t.Errorf("console shows %+v, want the sent webhook", e)
	}
	e := got[typeWebhookFail]
	if e.Reason == "" || e.Events != 1 || !strings.HasSuffix(e.URL, "/hook") {
		t.Errorf("console shows %+v, want the failed webhook with its reason", e)
	}
	if s := e.URL + e.Reason; strings.Contains(s, hookSecret) {
		t.Errorf("console shows the webhook URL's credentials: %+v", e)
	}
}

// TestOverviewShowsEachAppsWebhookFigures: the overview carries, per app,
// the webhook counters the metrics snapshot holds, each under its own name.
func TestOverviewShowsEachAppsWebhookFigures(t *testing.T) {
	f := newFixture(t, token, false, func(c *Config) {
		c.Snapshot = func(s *metrics.Snapshot) {
			s.Webhooks = []metrics.Webhook{{App: "shop", Sent: 1, FailedAttempts: 2, Retried: 3, Queued: 4, Outboxed: 5,
				Adopted: 6, OldestSeconds: 7.5, Dropped: map[string]int64{"retry_expired": 8, "queue_full": 9}}}
		}
	})
	code, body := f.request(t, "GET", "/dashboard/api/overview", "Bearer "+token, "")
	if code != http.StatusOK {
		t.Fatalf("overview: %d %s", code, body)
	}
	var got struct{ Webhooks []webhookView }
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := []webhookView{{App: "shop", Sent: 1, Failed: 2, Retried: 3, Queued: 4, Outbox: 5, Adopted: 6, OldestSeconds: 7.5,
		Dropped: map[string]int64{"retry_expired": 8, "queue_full": 9}}}
	if !reflect.DeepEqual(got.Webhooks, want) {
		t.Errorf("overview webhooks = %+v, want %+v", got.Webhooks, want)
	}
	for _, k := range []string{`"sent":1`, `"failed":2`, `"retried":3`, `"queued":4`, `"outbox":5`, `"adopted":6`, `"oldest_s":7.5`} {
		if !strings.Contains(body, k) {
			t.Errorf("overview has no %s: %s", k, body)
		}
	}
}

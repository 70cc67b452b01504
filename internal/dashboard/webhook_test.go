package dashboard

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
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
	w.Start(nil)
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

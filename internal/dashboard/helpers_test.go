package dashboard

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/api"
	"github.com/roostproject/roost/internal/apps"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/testutil"
)

const (
	token  = "dashboard-token-0123456789"
	secret = "very-secret-app-secret-42"
	// hookSecret is a credential inside a webhook URL, which the page must
	// not see either.
	hookSecret = "hook-password-77"
)

// appsYAML has one app with a secret and a webhook URL carrying a
// password and a token.
const appsYAML = `
apps:
  - id: shop
    key: shop-key
    secret: ` + secret + `
    max_connections: 10
    webhooks:
      - url: https://user:` + hookSecret + `@hooks.example/pusher?token=` + hookSecret + `
`

// fixture is a dashboard over a real hub, app store and HTTP API.
type fixture struct {
	hub *hub.Hub
	srv *httptest.Server
	d   *Dashboard
}

func newFixture(t testing.TB, token string, open bool, edit ...func(*Config)) *fixture {
	t.Helper()
	cfg, err := config.Parse([]byte(appsYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	src, err := apps.New(&cfg, log, apps.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 7)
	h.SetShard(0, inline{h})
	apiHandler := api.New(api.Config{Apps: src, Backend: h, Logger: log, MaxEventData: 100})
	dc := Config{Token: token, Open: open, Settings: cfg.Dashboard, Hub: h, Apps: src, API: apiHandler,
		Snapshot: func(s *metrics.Snapshot) { s.Channels, s.Subscriptions = h.Totals() }, Node: "7", Logger: log}
	for _, e := range edit {
		e(&dc)
	}
	d := New(dc)
	srv := httptest.NewServer(d)
	t.Cleanup(func() {
		d.Close()
		srv.Close()
		src.Close()
	})
	return &fixture{hub: h, srv: srv, d: d}
}

// inline is a shard that delivers at once on the caller's goroutine.
type inline struct{ h *hub.Hub }

func (s inline) Post(d hub.Delivery) { s.h.Flush(d) }
func (s inline) Do(f func())         { f() }

// request sends one request with header auth ("Bearer x" or a cookie
// "roost_dashboard=x") and returns the status and body.
func (f *fixture) request(t *testing.T, method, path, auth, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	setAuth(req, auth)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	// A stream that was let through never ends: the timeout fails it.
	c := f.srv.Client()
	c.Timeout = 10 * time.Second
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func setAuth(req *http.Request, auth string) {
	switch {
	case strings.HasPrefix(auth, "Bearer "):
		req.Header.Set("Authorization", auth)
	case strings.HasPrefix(auth, cookieName+"="):
		req.Header.Set("Cookie", auth)
	}
}

// stream opens the console stream and returns its events as they come.
func (f *fixture) stream(t *testing.T, query string) <-chan Event {
	t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+"/dashboard/api/console?"+query, nil)
	setAuth(req, "Bearer "+token)
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("console: %d", res.StatusCode)
	}
	events := make(chan Event, 100)
	ready := make(chan struct{})
	go func(ready chan struct{}) {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			if name == "status" && ready != nil {
				close(ready)
				ready = nil
			}
			if name == "event" {
				var e Event
				json.Unmarshal([]byte(data), &e)
				events <- e
			}
		}
	}(ready)
	t.Cleanup(func() { res.Body.Close() })
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the console stream sent no status")
	}
	return events
}

// next returns the next event of the stream, failing after a while.
func next(t *testing.T, events <-chan Event) Event {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no console event")
	}
	return Event{}
}

func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }

package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/webhook"
)

// TestWebhooksAreWiredAndCounted: an app's webhook URL gets the signed
// channel_occupied and cache_miss of a subscription, and /metrics counts
// them, on each transport.
func TestWebhooksAreWiredAndCounted(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.Header.Get("X-Pusher-Key") != "app-key" || r.Header.Get("X-Pusher-Signature") != webhook.Sign("app-secret", body) {
					t.Errorf("unsigned request: %v", r.Header)
				}
				mu.Lock()
				bodies = append(bodies, string(body))
				mu.Unlock()
			}))
			t.Cleanup(backend.Close) // after the server's shutdown, which sends channel_vacated
			s := startServer(t, tr, func(c *config.Config) {
				c.Apps[0].Webhooks = []config.Webhook{{URL: backend.URL}}
				c.Webhooks.Delay = 100 * time.Millisecond
			})
			s.connect(t).Subscribe("cache-wired")
			testutil.Eventually(t, waitLimit, "both events at the backend", func() bool {
				mu.Lock()
				defer mu.Unlock()
				all := strings.Join(bodies, "")
				return strings.Contains(all, `{"name":"channel_occupied","channel":"cache-wired"}`) &&
					strings.Contains(all, `{"name":"cache_miss","channel":"cache-wired"}`)
			})
			waitForMetrics(t, s, `roost_webhook_sent_total{app="app-id"} 2`, `roost_webhook_queue_depth{app="app-id"} 0`, `roost_webhook_oldest_event_age_seconds{app="app-id"} 0`,
				`roost_webhook_dropped_total{app="app-id",reason="queue_full"} 0`)
		})
	}
}

// hookBackend is a webhook URL that checks signatures with secret and keeps
// the bodies it got.
type hookBackend struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newHookBackend(t *testing.T, key, secret string) *hookBackend {
	b := &hookBackend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Pusher-Key") != key || r.Header.Get("X-Pusher-Signature") != webhook.Sign(secret, body) {
			t.Errorf("request not signed by app %s: %v", key, r.Header)
		}
		b.mu.Lock()
		b.bodies = append(b.bodies, string(body))
		b.mu.Unlock()
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *hookBackend) has(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Contains(strings.Join(b.bodies, ""), s)
}

// TestDatabaseAppWebhooksAreDelivered: an app whose webhooks column names a
// URL gets its events there, signed with its secret; a changed column moves
// them to the new URL at the next refresh.
func TestDatabaseAppWebhooksAreDelivered(t *testing.T) {
	for _, d := range dbKinds {
		t.Run(d.name, func(t *testing.T) {
			first, second := newHookBackend(t, "db-key", "db-secret"), newHookBackend(t, "db-key", "db-secret")
			db := d.new(t)
			db.Exec(t, testutil.SoketiSchema(db.Postgres, "apps"))
			db.InsertSoketiApp(t, "apps", "db-app", "db-key", "db-secret", -1)
			setHooks := func(url string) {
				db.Exec(t, `UPDATE apps SET webhooks = '[{"url":"`+url+`","event_types":["channel_occupied","cache_miss"]}]' WHERE id = 'db-app'`)
			}
			setHooks(first.URL)
			srv := startServer(t, "epoll", func(c *config.Config) {
				withAppStore(db.URL)(c)
				c.Webhooks.Delay = 100 * time.Millisecond
			})
			c := testutil.Connect(t, srv.url("db-key"), srv.opts)
			c.Subscribe("cache-db-one")
			c.Expect("pusher:cache_miss")
			testutil.Eventually(t, waitLimit, "the first URL to get both events", func() bool {
				return first.has(`{"name":"channel_occupied","channel":"cache-db-one"}`) && first.has(`{"name":"cache_miss","channel":"cache-db-one"}`)
			})
			waitForMetrics(t, srv, `roost_webhook_sent_total{app="db-app"} 2`)

			setHooks(second.URL)
			testutil.Eventually(t, waitLimit, "the changed URL to get the next channel", func() bool {
				c.Subscribe("db-next-" + strconv.FormatInt(time.Now().UnixNano(), 10))
				return second.has(`"name":"channel_occupied"`)
			})
		})
	}
}

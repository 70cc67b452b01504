package server

import (
	"io"
	"net/http"
	"net/http/httptest"
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
			waitForMetrics(t, s, `roost_webhook_sent_total{app="app-id"} 2`, `roost_webhook_queue_depth{app="app-id"} 0`,
				`roost_webhook_dropped_total{app="app-id",reason="queue_full"} 0`)
		})
	}
}

package chaos

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/webhook"
)

// hooks is a real HTTP receiver of the app's webhooks (Pusher docs,
// "Webhooks"): it checks each request's signature and keeps every event,
// once: an event whose id (webhook.HeaderEventIDs) it has already kept is
// dropped, as docs/webhooks.md tells receivers to (a node killed with
// requests in flight has them sent again by the node that takes over its
// outbox).
type hooks struct {
	url string

	mu     sync.Mutex // guards events, seen and bad
	events []hook
	seen   map[string]bool // the ids of the events kept
	bad    int             // requests with a wrong signature or body
}

// hook is one webhook event.
type hook struct {
	Name    string `json:"name"`
	Channel string `json:"channel"`
	UserID  string `json:"user_id"`
	Event   string `json:"event"`
	Data    string `json:"data"`

	at time.Time // when it arrived
}

func startHooks(t *testing.T) *hooks {
	h := &hooks{seen: map[string]bool{}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

func (h *hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var batch struct {
		Events []hook `json:"events"`
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Header.Get("X-Pusher-Key") != appKey || r.Header.Get("X-Pusher-Signature") != auth.Sign(appSecret, string(body)) ||
		json.Unmarshal(body, &batch) != nil {
		h.bad++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	ids := strings.Split(r.Header.Get(webhook.HeaderEventIDs), ",")
	if len(ids) != len(batch.Events) {
		h.bad++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	for i, e := range batch.Events {
		if !h.seen[ids[i]] {
			h.seen[ids[i]] = true
			e.at = time.Now()
			h.events = append(h.events, e)
		}
	}
}

// snapshot returns every event received so far and the count of bad
// requests.
func (h *hooks) snapshot() ([]hook, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hook(nil), h.events...), h.bad
}

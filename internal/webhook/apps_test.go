package webhook

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// byURL is a backend that answers 200 and records the events each URL got,
// checking signatures against the secret the test says is current.
type byURL struct {
	t      *testing.T
	mu     sync.Mutex
	secret string
	got    map[string][]string // URL -> "name channel"
}

func (b *byURL) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	var v struct{ Events []wireEvent }
	json.Unmarshal(body, &v)
	b.mu.Lock()
	if got := req.Header.Get("X-Pusher-Signature"); got != Sign(b.secret, body) {
		b.t.Errorf("%s: signature %s is not made with the current secret", req.URL, got)
	}
	for _, e := range v.Events {
		b.got[req.URL.String()] = append(b.got[req.URL.String()], e.Name+" "+e.Channel)
	}
	b.mu.Unlock()
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: req}, nil
}

func (b *byURL) events(url string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.got[url])
}

// TestSetAppFollowsChangedWebhooks: an app added at run time gets its
// events; a changed URL, event type list or secret applies to the events
// reported after the change; a removed app gets nothing more.
func TestSetAppFollowsChangedWebhooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &byURL{t: t, secret: "s1", got: map[string][]string{}}
		w := New(Options{Settings: testSettings(), Transport: b, Logger: slog.New(slog.DiscardHandler)})
		w.Start(nil, nil)
		defer w.Close(context.Background())
		const one, two = "http://one.example/h", "http://two.example/h"
		app := config.App{ID: "db", Key: "k", Secret: "s1", Webhooks: []config.Webhook{{URL: one}}}
		w.CacheMiss("db", "cache-before") // not known yet: nothing
		w.SetApp(&app)
		w.CacheMiss("db", "cache-a")
		synctest.Wait()
		time.Sleep(time.Second)
		synctest.Wait()

		app2 := app
		app2.Secret = "s2"
		app2.Webhooks = []config.Webhook{{URL: two, EventTypes: []string{config.WebhookCacheMiss}}}
		b.mu.Lock()
		b.secret = "s2"
		b.mu.Unlock()
		w.SetApp(&app2)
		w.SetApp(&app2) // unchanged: nothing restarts
		w.CacheMiss("db", "cache-b")
		w.ClientEvent("db", "private-x", "client-y", "{}", "1.1", "") // not wanted by two
		synctest.Wait()
		time.Sleep(time.Second)
		synctest.Wait()

		w.RemoveApp("db")
		w.CacheMiss("db", "cache-after")
		synctest.Wait()
		time.Sleep(time.Second)
		synctest.Wait()

		if got := b.events(one); !slices.Equal(got, []string{"cache_miss cache-a"}) {
			t.Errorf("first URL got %q, want only cache-a", got)
		}
		if got := b.events(two); !slices.Equal(got, []string{"cache_miss cache-b"}) {
			t.Errorf("second URL got %q, want only cache-b", got)
		}
		if w.Enabled() {
			t.Error("removed app still has webhooks")
		}
	})
}

// TestSetAppKeepsCountersAndQueuedEvents: a change that comes while events
// are queued lets the old URL have them, and the app's counters go on.
func TestSetAppKeepsCountersAndQueuedEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &byURL{t: t, secret: "s", got: map[string][]string{}}
		app := config.App{ID: "db", Key: "k", Secret: "s", Webhooks: []config.Webhook{{URL: "http://one.example/h"}}}
		w := New(Options{Apps: []config.App{app}, Settings: testSettings(), Transport: b, Logger: slog.New(slog.DiscardHandler)})
		w.Start(nil, nil)
		defer w.Close(context.Background())
		w.CacheMiss("db", "queued") // waits batch_wait for company
		synctest.Wait()
		app.Webhooks = []config.Webhook{{URL: "http://two.example/h"}}
		w.SetApp(&app)
		w.CacheMiss("db", "later")
		time.Sleep(time.Second)
		synctest.Wait()
		if got := b.events("http://one.example/h"); !slices.Equal(got, []string{"cache_miss queued"}) {
			t.Errorf("old URL got %q, want the event queued before the change", got)
		}
		if got := b.events("http://two.example/h"); !slices.Equal(got, []string{"cache_miss later"}) {
			t.Errorf("new URL got %q", got)
		}
		if st := w.Stats(); len(st) != 1 || st[0].Sent != 2 || st[0].Queued != 0 {
			t.Errorf("stats %+v, want 2 sent for the one app", st)
		}
	})
}

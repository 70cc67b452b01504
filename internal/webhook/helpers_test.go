package webhook

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// receiver is a backend's webhook endpoint, as an http.RoundTripper so that
// tests run in a synctest bubble: it checks each request's signature and
// answers with the next of its statuses (then 200); status 0 never answers.
type receiver struct {
	t        *testing.T
	mu       sync.Mutex
	statuses []int
	requests [][]wireEvent
	attempts int
	logs     atomic.Int64 // log records written
}

// Enabled, Handle, WithAttrs and WithGroup make receiver the slog.Handler
// of the Webhooks under test, counting what it logs.
func (r *receiver) Enabled(context.Context, slog.Level) bool { return true }
func (r *receiver) Handle(context.Context, slog.Record) error {
	r.logs.Add(1)
	return nil
}
func (r *receiver) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *receiver) WithGroup(string) slog.Handler      { return r }

// wireEvent is an event as the backend reads it.
type wireEvent struct {
	Name     string `json:"name"`
	Channel  string `json:"channel"`
	UserID   string `json:"user_id"`
	Event    string `json:"event"`
	Data     string `json:"data"`
	SocketID string `json:"socket_id"`
	Count    int    `json:"subscription_count"`
}

func (r *receiver) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	if got, want := req.Header.Get("X-Pusher-Signature"), Sign(testSecret, body); got != want {
		r.t.Errorf("signature %q, want %q", got, want)
	}
	if req.Header.Get("X-Pusher-Key") != testKey || req.Header.Get("Content-Type") != "application/json" {
		r.t.Errorf("headers %v", req.Header)
	}
	r.mu.Lock()
	r.attempts++
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	if status == http.StatusOK {
		var b struct {
			TimeMS int64       `json:"time_ms"`
			Events []wireEvent `json:"events"`
		}
		if err := json.Unmarshal(body, &b); err != nil || b.TimeMS == 0 {
			r.t.Errorf("body %s: %v", body, err)
		}
		r.requests = append(r.requests, b.Events)
	}
	r.mu.Unlock()
	if status == 0 {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Body: io.NopCloser(strings.NewReader("")),
		Header: http.Header{}, Request: req}, nil
}

// names lists the delivered events as "name channel user".
func (r *receiver) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, req := range r.requests {
		for _, e := range req {
			out = append(out, strings.TrimSpace(e.Name+" "+e.Channel+" "+e.UserID))
		}
	}
	return out
}

const (
	testKey    = "key"
	testSecret = "secret"
)

// testSettings are the defaults, as config gives them.
func testSettings() config.Webhooks {
	return config.Webhooks{Delay: 3 * time.Second, BatchWait: 250 * time.Millisecond, BatchMax: 50,
		Timeout: 5 * time.Second, RetryFor: 5 * time.Minute, QueueBytes: 8 << 20}
}

// start returns Webhooks for app "app" with one URL that r answers.
func start(t *testing.T, r *receiver, s config.Webhooks, types ...string) *Webhooks {
	r.t = t
	w := New(Options{
		Apps: []config.App{{ID: "app", Key: testKey, Secret: testSecret,
			Webhooks: []config.Webhook{{URL: "http://backend.example/hooks", EventTypes: types}}}},
		Settings: s, Transport: r, Logger: slog.New(r),
	})
	w.Start(nil)
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

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
	// answer, when not nil, chooses the status of a request by its events
	// (after statuses are used up).
	answer   func([]wireEvent) int
	requests [][]wireEvent // those answered 200
	tried    [][]wireEvent // every request, in the order they came
	at       []time.Time   // when each of tried came
	attempts int
	logs     atomic.Int64   // log records written
	logged   map[string]int // log records by message
}

// Enabled, Handle, WithAttrs and WithGroup make receiver the slog.Handler
// of the Webhooks under test, counting what it logs.
func (r *receiver) Enabled(context.Context, slog.Level) bool { return true }
func (r *receiver) Handle(_ context.Context, rec slog.Record) error {
	r.logs.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logged == nil {
		r.logged = make(map[string]int)
	}
	r.logged[rec.Message]++
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
	var b struct {
		TimeMS int64       `json:"time_ms"`
		Events []wireEvent `json:"events"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.TimeMS == 0 {
		r.t.Errorf("body %s: %v", body, err)
	}
	r.mu.Lock()
	r.attempts++
	r.tried = append(r.tried, b.Events)
	r.at = append(r.at, time.Now())
	status := http.StatusOK
	switch {
	case len(r.statuses) > 0:
		status, r.statuses = r.statuses[0], r.statuses[1:]
	case r.answer != nil:
		status = r.answer(b.Events)
	}
	if status == http.StatusOK {
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
	w.Start(nil, nil)
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

// refusing answers 500 to every request that carries an event of channel,
// 200 to the others: a backend with a bug for one channel name.
func refusing(channel string) func([]wireEvent) int {
	return func(events []wireEvent) int {
		for _, e := range events {
			if e.Channel == channel {
				return http.StatusInternalServerError
			}
		}
		return http.StatusOK
	}
}

// triedWith counts the requests that carried an event of channel.
func (r *receiver) triedWith(channel string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, req := range r.tried {
		if slices.ContainsFunc(req, func(e wireEvent) bool { return e.Channel == channel }) {
			n++
		}
	}
	return n
}

// dataOf lists the data of the delivered client events of channel, in the
// order they arrived.
func (r *receiver) dataOf(channel string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, req := range r.requests {
		for _, e := range req {
			if e.Channel == channel {
				out = append(out, e.Data)
			}
		}
	}
	return out
}

// logLines returns how many log lines began with prefix.
func (r *receiver) logLines(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for msg, k := range r.logged {
		if strings.HasPrefix(msg, prefix) {
			n += k
		}
	}
	return n
}

// tries returns the number of requests made so far.
func (r *receiver) tries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

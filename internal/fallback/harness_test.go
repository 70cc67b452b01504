package fallback

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/portable"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

func TestMain(m *testing.M) { testutil.CheckGoroutineLeaks(m) }

// rig is a Handler over a real hub and the portable transport's
// dispatcher, with a clock the test moves.
type rig struct {
	*Handler
	hub      *hub.Hub
	app      *config.App
	released atomic.Int64
	mu       sync.Mutex
	clock    time.Time
}

// newRig starts a rig; edit may change the policy.
func newRig(t testing.TB, edit func(*transport.Policy)) *rig {
	t.Helper()
	cfg := config.Default()
	cfg.ActivityTimeout = 120 * time.Second
	cfg.PongWait = 30 * time.Second
	r := &rig{app: &cfg.Apps[0], clock: time.Unix(1_000_000, 0)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r.hub = hub.New(hub.Config{Shards: 1, Encode: encodeEvent}, 7)
	env := &session.Env{Hub: r.hub, Config: &cfg, Logger: log, Now: func() int64 { return r.now().Unix() }}
	pol := transport.Policy{MaxMessage: 10_000, WriteBacklog: 1 << 20, WriteTimeout: 5 * time.Second, Budget: transport.NewBudget(0),
		ActivityTimeout: cfg.ActivityTimeout, PongWait: cfg.PongWait, CloseTimeout: 5 * time.Second}
	if edit != nil {
		edit(&pol)
	}
	pt := portable.New(portable.Config{Shard: 0, Hub: r.hub, Env: env, Policy: pol, Logger: log})
	r.Handler = New(Config{Env: env, Policy: pol, Shard: 0, Do: pt.Do, Logger: log, PollWait: 20 * time.Millisecond,
		Now: r.now, Admit: r.admit})
	t.Cleanup(func() {
		r.Close()
		pt.Shutdown(context.Background())
	})
	return r
}

func (r *rig) now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clock
}

// advance moves the clock by d and runs the sweeper's check once.
func (r *rig) advance(d time.Duration) {
	r.mu.Lock()
	r.clock = r.clock.Add(d)
	r.mu.Unlock()
	for _, c := range r.each() {
		c.check(r.now())
	}
}

func (r *rig) admit(w http.ResponseWriter, req *http.Request, key, _ string) Admission {
	if key != r.app.Key {
		return Admission{Code: pusher.AppNotFound, Reason: "unknown app key"}
	}
	return Admission{App: r.app, Release: func() { r.released.Add(1) }}
}

func encodeEvent(m *hub.Message) []byte {
	return ws.AppendFrame(nil, ws.OpText, pusher.AppendEvent(nil, m.Event, m.Channel, m.Data))
}

// sessionPath is the path of a session of the development app.
func sessionPath(sess, what string) string {
	return Prefix + "app-key/12/" + sess + "/" + what
}

// post sends one request through the handler and returns its answer.
func (r *rig) post(t testing.TB, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// pollFor polls the session until the answers so far contain want, and
// returns them.
func (r *rig) pollFor(t *testing.T, sess, want string) string {
	t.Helper()
	var got strings.Builder
	for range 500 {
		w := r.post(t, sessionPath(sess, "xhr"), "")
		if w.Code != http.StatusOK {
			t.Fatalf("poll: %d %s", w.Code, w.Body)
		}
		got.Write(w.Body.Bytes())
		if strings.Contains(got.String(), want) {
			return got.String()
		}
	}
	t.Fatalf("polls never answered %q; got %q", want, got.String())
	return ""
}

// send posts an xhr_send body and checks its status.
func (r *rig) send(t *testing.T, sess, body string, status int) {
	t.Helper()
	if w := r.post(t, sessionPath(sess, "xhr_send"), body); w.Code != status {
		t.Fatalf("xhr_send %.40s: %d %.200s, want %d", body, w.Code, w.Body, status)
	}
}

// quoted is msg as an element of an xhr_send body.
func quoted(msg string) string { return string(appendQuoted(nil, []byte(msg))) }

// lines splits a response into its lines.
func lines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

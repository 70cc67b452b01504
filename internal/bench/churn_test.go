package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/roostproject/roost/internal/ws"
)

// fakePusher is a loopback WebSocket server that speaks just enough of the
// Pusher protocol for one churn cycle: it sends connection_established,
// answers pusher:subscribe with subscription_succeeded, and records what
// each connection sent, in order ("close" for a close frame).
type fakePusher struct {
	mu   sync.Mutex
	seen [][]string // per connection
}

func (f *fakePusher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, pending, st, err := ws.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	f.mu.Lock()
	i := len(f.seen)
	f.seen = append(f.seen, nil)
	f.mu.Unlock()
	h := &fakeConn{f: f, i: i}
	h.out = ws.AppendFrame(nil, ws.OpText, []byte(serverMessages[0]))
	buf := make([]byte, 4096)
	var frag []byte
	for !h.closed {
		if _, err := conn.Write(h.out); err != nil {
			return
		}
		h.out = h.out[:0]
		n, err := ws.Decode(&st, pending, 0, &frag, h)
		if err != nil {
			return
		}
		pending = pending[n:]
		if len(h.out) > 0 || h.closed {
			continue
		}
		m, err := conn.Read(buf)
		if err != nil {
			return
		}
		pending = append(pending, buf[:m]...)
	}
	conn.Write(h.out)
}

// fakeConn is fakePusher's ws.Handler for one connection.
type fakeConn struct {
	f      *fakePusher
	i      int
	out    []byte
	closed bool
}

func (h *fakeConn) record(s string) {
	h.f.mu.Lock()
	h.f.seen[h.i] = append(h.f.seen[h.i], s)
	h.f.mu.Unlock()
}

func (h *fakeConn) OnText(p []byte) bool {
	ev := eventName(p)
	h.record(ev)
	if ev == "pusher:subscribe" {
		h.out = ws.AppendFrame(h.out, ws.OpText, []byte(serverMessages[1]))
	}
	return true
}

func (h *fakeConn) OnPing(p []byte) bool { return true }
func (h *fakeConn) OnPong(p []byte) bool { return true }

func (h *fakeConn) OnClose(code ws.CloseCode, reason []byte) bool {
	h.record("close")
	h.out = ws.AppendClose(h.out, ws.CloseNormal, "")
	h.closed = true
	return false
}

// churnAgainst runs one churn cycle of a worker against a fakePusher and
// returns what the server saw and the worker's counters.
func churnAgainst(t *testing.T, bare bool) ([]string, WorkerStatus) {
	t.Helper()
	f := &fakePusher{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &worker{
		cfg: workerConfig{url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/app/key", channels: 1, churnBare: bare},
		ctx: ctx, cancel: cancel, sem: make(chan struct{}, 1), clients: make(map[*ws.Client]struct{}),
	}
	w.sem <- struct{}{}
	w.churnOnce()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) != 1 {
		t.Fatalf("the server saw %d connections, want 1", len(f.seen))
	}
	return f.seen[0], w.status()
}

func TestChurnSubscribesBeforeClosing(t *testing.T) {
	seen, st := churnAgainst(t, false)
	if strings.Join(seen, " ") != "pusher:subscribe close" {
		t.Fatalf("the server saw %q, want a subscribe and then a close", seen)
	}
	if st.Handshakes != 1 || st.ChurnFailed != 0 {
		t.Fatalf("worker counted %d cycles, %d failures (%s); want 1, 0", st.Handshakes, st.ChurnFailed, st.Err)
	}
}

func TestChurnBareOnlyCloses(t *testing.T) {
	seen, st := churnAgainst(t, true)
	if strings.Join(seen, " ") != "close" {
		t.Fatalf("the server saw %q, want only a close", seen)
	}
	if st.Handshakes != 1 || st.ChurnFailed != 0 {
		t.Fatalf("worker counted %d cycles, %d failures (%s); want 1, 0", st.Handshakes, st.ChurnFailed, st.Err)
	}
}

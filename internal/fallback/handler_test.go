package fallback

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/transport"
)

const subscribe = `{"event":"pusher:subscribe","data":{"auth":"","channel":"news"}}`

// TestPollingSessionCarriesTheProtocol opens a polling session, subscribes
// through xhr_send and receives a publish in a poll.
func TestPollingSessionCarriesTheProtocol(t *testing.T) {
	r := newRig(t, nil)
	if w := r.post(t, sessionPath("abcdefgh", "xhr"), ""); w.Body.String() != "o\n" {
		t.Fatalf("first poll = %q, want o", w.Body)
	}
	r.pollFor(t, "abcdefgh", "pusher:connection_established")
	r.send(t, "abcdefgh", "["+quoted(subscribe)+"]", http.StatusNoContent)
	r.pollFor(t, "abcdefgh", "pusher_internal:subscription_succeeded")
	r.hub.Publish("app-id", hub.Publication{Channels: []string{"news"}, Event: "story", Data: `{"n":1}`})
	got := r.pollFor(t, "abcdefgh", `story`)
	if !strings.Contains(got, `a["{\"event\":\"story\",\"channel\":\"news\",\"data\":\"{\\\"n\\\":1}\"}"]`) {
		t.Errorf("publish arrived as %q", got)
	}
}

// TestRefusedInPusherTerms checks that an unknown app key opens a session
// only to send pusher:error and c[4001], as a WebSocket is refused.
func TestRefusedInPusherTerms(t *testing.T) {
	r := newRig(t, nil)
	w := r.post(t, Prefix+"nope/1/abcdefgh/xhr_streaming", "")
	want := []string{"o", `a["{\"event\":\"pusher:error\",\"data\":{\"code\":4001,\"message\":\"unknown app key\"}}"]`, `c[4001,"unknown app key"]`}
	if got := lines(w.Body.Bytes()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("refusal = %q, want %q", got, want)
	}
	if r.Len() != 0 {
		t.Errorf("a refused session was kept")
	}
}

// TestBadInput checks the answers to what pusher-js never sends: a path
// it does not make (404), an unknown session (404), a body that is not an
// array of strings (400) or a message over the cap (413); the session
// survives every refusal.
func TestBadInput(t *testing.T) {
	r := newRig(t, nil)
	r.post(t, sessionPath("abcdefgh", "xhr"), "")
	for _, p := range []string{Prefix + "app-key/1000/abcdefgh/xhr", Prefix + "app-key/1/ABCDEFGH/xhr", Prefix + "app-key/1/abcdefg/xhr"} {
		if w := r.post(t, p, ""); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, w.Code)
		}
	}
	r.send(t, "zzzzzzzz", "[]", http.StatusNotFound)
	for _, body := range []string{"", "nope", "{}", "null", "[1]", `["a",null]`, `["a"`} {
		r.send(t, "abcdefgh", body, http.StatusBadRequest)
	}
	r.send(t, "abcdefgh", `["`+strings.Repeat("x", 10_001)+`"]`, http.StatusRequestEntityTooLarge)
	r.send(t, "abcdefgh", `["`+strings.Repeat(`\u0000`, 10_000)+`"]`, http.StatusNoContent) // six bytes a byte fit the body cap
	r.send(t, "abcdefgh", "["+quoted(subscribe)+"]", http.StatusNoContent)
	r.pollFor(t, "abcdefgh", "subscription_succeeded")
	if w := r.post(t, sessionPath("abcdefgh", "xhr_streaming"), ""); w.Code != http.StatusNotFound {
		t.Errorf("a polling session's id served a stream: %d", w.Code)
	}
}

// TestSilentSessionEnds4201 checks that a session whose client holds a
// stream but sends nothing is pinged with "h" after the activity timeout
// and its grace, ends with 4201 a pong wait later, not a second earlier,
// and gives its place back.
func TestSilentSessionEnds4201(t *testing.T) {
	r := newRig(t, nil)
	c := r.openStreaming(t)
	p := r.cfg.Policy
	r.advance(p.Silence(false) + p.PongWait - time.Second)
	if got := r.queued(c); got != "h\n" || r.released.Load() != 0 {
		t.Fatalf("before the deadline: queued %q, released %d; want h and 0", got, r.released.Load())
	}
	r.advance(2 * time.Second)
	if got := r.queued(c); got != `c[4201,"pong not received"]`+"\n" {
		t.Errorf("timed out session queued %q", got)
	}
	waitFor(t, func() bool { return r.released.Load() == 1 })
	if n := r.stats[streaming].Read().Closed[1]; n != 1 {
		t.Errorf("closed by timeout = %d, want 1", n)
	}
}

// TestDetachedSessionEnds checks that a session nobody polls for the
// detach time ends as its client's close: pusher-js says nothing when it
// disconnects.
func TestDetachedSessionEnds(t *testing.T) {
	r := newRig(t, nil)
	r.post(t, sessionPath("abcdefgh", "xhr"), "")
	waitFor(t, func() bool { return r.cfg.Policy.Budget.Queued() > 0 }) // connection_established, never polled
	r.advance(r.cfg.Detach + time.Second)
	waitFor(t, func() bool { return r.released.Load() == 1 && r.Len() == 0 })
	if n := r.stats[polling].Read().Closed[0]; n != 1 {
		t.Errorf("closed by client = %d, want 1", n)
	}
	if q := r.cfg.Policy.Budget.Queued(); q != 0 {
		t.Errorf("the node's budget still counts %d bytes of the ended session", q)
	}
}

// TestStreamingHeartbeats checks the heartbeat rule: a client's "[]" is
// answered with "h", the client's "[]" answering that "h" is not, and a
// session silent past the activity timeout gets "h" from the server.
func TestStreamingHeartbeats(t *testing.T) {
	r := newRig(t, nil)
	c := r.openStreaming(t)
	c.touch(true)
	c.touch(true)
	if got := r.queued(c); got != "h\n" {
		t.Fatalf("after a ping and its echo, queued %q, want one h", got)
	}
	r.advance(r.cfg.Policy.Silence(false) + time.Second)
	if got := r.queued(c); got != "h\n" {
		t.Fatalf("a silent session got %q, want h", got)
	}
	c.touch(true) // the client's answer to it
	if got := r.queued(c); got != "" {
		t.Fatalf("the answer to the server's h was answered: %q", got)
	}
}

// TestBacklogOverflowCloses4100 checks that what waits for a poll is
// bounded by the write backlog: past it the session ends with 4100 after
// what was queued.
func TestBacklogOverflowCloses4100(t *testing.T) {
	r := newRig(t, func(p *transport.Policy) { p.WriteBacklog = 2000 })
	r.post(t, sessionPath("abcdefgh", "xhr"), "")
	r.pollFor(t, "abcdefgh", "connection_established")
	r.send(t, "abcdefgh", "["+quoted(subscribe)+"]", http.StatusNoContent)
	r.pollFor(t, "abcdefgh", "subscription_succeeded")
	for range 30 {
		r.hub.Publish("app-id", hub.Publication{Channels: []string{"news"}, Event: "story", Data: strings.Repeat("x", 100)})
	}
	got := r.pollFor(t, "abcdefgh", "c[")
	if !strings.HasSuffix(got, `c[4100,"over capacity"]`+"\n") || strings.Count(got, "story") >= 30 {
		t.Errorf("overflowing session answered %d stories and %q", strings.Count(got, "story"), got[len(got)-30:])
	}
	// The close is counted once the session's dispatcher has removed it,
	// which may come after the poll carried the c[...] line.
	testutil.Eventually(t, 5*time.Second, "one slow consumer counted", func() bool {
		return r.stats[polling].Read().Closed[2] == 1
	})
}

// openStreaming makes a streaming session in the table without a request
// holding it.
func (r *rig) openStreaming(t testing.TB) *conn {
	t.Helper()
	now := r.now()
	c := &conn{h: r.Handler, key: "app-key/1/stream00", kind: streaming, release: func() { r.released.Add(1) }, wake: make(chan struct{}, 1), seen: now, loose: now}
	r.insert(c)
	r.stats[streaming].Opened()
	done := make(chan struct{})
	r.cfg.Do(func() { c.call().Init(r.app); close(done) })
	<-done
	c.attach(r.gens.Add(1))
	c.take(c.gen, 0) // connection_established
	return c
}

// queued takes what c has queued.
func (r *rig) queued(c *conn) string {
	out, _, _ := c.take(c.gen, 0)
	return string(out)
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("condition never held")
}

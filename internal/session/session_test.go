package session

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/ws"
)

// fakeConn records what the session writes.
type fakeConn struct {
	s       *Session
	frames  []string
	closed  ws.CloseCode
	discard bool // drop frames (allocation tests)
}

func (c *fakeConn) Send(f []byte) {
	if !c.discard {
		c.frames = append(c.frames, string(f))
	}
}
func (c *fakeConn) Close(code ws.CloseCode, _ string) { c.closed = code }
func (c *fakeConn) Shard() int                        { return 0 }
func (c *fakeConn) SocketSeq() uint64                 { return c.s.SocketSeq() }
func (c *fakeConn) Deliver(f []byte)                  { c.Send(f) }
func (c *fakeConn) Terminate()                        {}
func (c *fakeConn) Moved(ch *hub.Channel, i int)      { c.s.Moved(ch, i) }
func (c *fakeConn) last() string                      { return c.frames[len(c.frames)-1] }

type inline struct{ h *hub.Hub }

func (s inline) Post(d hub.Delivery) { s.h.Flush(d) }
func (s inline) Do(f func())         { f() }

func newEnv(t testing.TB) *Env {
	cfg := config.Default()
	h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Event) }}, 1)
	h.SetShard(0, inline{h})
	return &Env{Hub: h, Config: &cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() int64 { return 1 }}
}

func open(env *Env) (*Session, *fakeConn) {
	s := &Session{}
	c := &fakeConn{s: s}
	s.On(env, c).Init(&env.Config.Apps[0])
	return s, c
}

func TestHandleTextReplies(t *testing.T) {
	env := newEnv(t)
	s, c := open(env)
	if !strings.Contains(c.last(), "pusher:connection_established") {
		t.Fatalf("first frame %q", c.last())
	}
	cases := []struct{ in, want string }{
		{`{"event":"pusher:ping","data":{}}`, "pusher:pong"},
		{`not json`, "pusher:error"},
		{`{"event":"pusher:subscribe","data":{"channel":"a b"}}`, "pusher:subscription_error"},
		{`{"event":"pusher:subscribe","data":{"channel":"ok"}}`, "pusher_internal:subscription_succeeded"},
		{`{"event":"pusher:subscribe","data":{"channel":"private-x","auth":"app-key:bad"}}`, `"status":401`},
		{`{"event":"pusher:subscribe","data":{"channel":"#server-to-user-u"}}`, "pusher:subscription_error"},
		{`{"event":"what:ever"}`, "pusher:error"},
		{`{"event":"client-x","channel":"ok","data":{}}`, "pusher:error"},
	}
	for _, tc := range cases {
		s.On(env, c).HandleText([]byte(tc.in))
		if !strings.Contains(c.last(), tc.want) {
			t.Errorf("%s: got %q, want it to contain %q", tc.in, c.last(), tc.want)
		}
	}
	if c.closed != 0 {
		t.Fatalf("bad input closed the connection (%d)", c.closed)
	}
	s.On(env, c).Closed()
	if got := env.Hub.Channel("app-id", "ok"); got.Occupied {
		t.Fatal("a closed session is still subscribed")
	}
}

// BenchmarkPing is what an idle pusher-js connection costs the server
// every activity_timeout: one pusher:ping answered.
func BenchmarkPing(b *testing.B) {
	env := newEnv(b)
	s, c := open(env)
	c.discard = true
	ping := []byte(`{"event":"pusher:ping","data":{}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.On(env, c).HandleText(ping)
	}
}

// TestPingAllocatesNothing guards the upkeep of an idle connection.
func TestPingAllocatesNothing(t *testing.T) {
	env := newEnv(t)
	s, c := open(env)
	c.discard = true
	ping := []byte(`{"event":"pusher:ping","data":{}}`)
	if n := testing.AllocsPerRun(100, func() { s.On(env, c).HandleText(ping) }); n != 0 {
		t.Fatalf("a pusher:ping costs %v allocations, want 0", n)
	}
}

// slowBroker confirms subscriptions only when told to, like Redis does.
type slowBroker struct {
	h     *hub.Hub
	ready []func()
}

func (b *slowBroker) Publish(m *hub.Message) error        { b.h.Deliver(m); return nil }
func (b *slowBroker) Subscribe(_, _ string, ready func()) { b.ready = append(b.ready, ready) }
func (b *slowBroker) Unsubscribe(_, _ string)             {}
func (b *slowBroker) confirm() {
	for _, f := range b.ready {
		f()
	}
	b.ready = nil
}

func TestSubscriptionWaitsForTheBroker(t *testing.T) {
	env := newEnv(t)
	b := &slowBroker{h: env.Hub}
	env.Hub.SetBroker(b)
	s, c := open(env)
	subscribe := []byte(`{"event":"pusher:subscribe","data":{"channel":"news"}}`)
	s.On(env, c).HandleText(subscribe)
	s.On(env, c).HandleText(subscribe) // a repeat while pending answers nothing
	if n := len(c.frames); n != 1 {
		t.Fatalf("frames before the broker confirmed: %q", c.frames)
	}
	b.confirm()
	if !strings.Contains(c.last(), "subscription_succeeded") || len(c.frames) != 2 {
		t.Fatalf("after confirmation: %q, want one subscription_succeeded", c.frames)
	}
	// Unsubscribed before the broker confirms: never attached, channel released.
	s.On(env, c).HandleText([]byte(`{"event":"pusher:subscribe","data":{"channel":"later"}}`))
	s.On(env, c).HandleText([]byte(`{"event":"pusher:unsubscribe","data":{"channel":"later"}}`))
	b.confirm()
	if got := env.Hub.Channel("app-id", "later"); got.Occupied {
		t.Fatalf("a subscription cancelled while pending still holds the channel: %+v", got)
	}
	if strings.Contains(c.last(), `"later"`) {
		t.Fatalf("a cancelled subscription was answered: %q", c.last())
	}
}

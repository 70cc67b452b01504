package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// The tests drive sessions through their public API over a recorder, an
// in-memory transport that keeps what each session writes, and a hub in
// its single-node setup, so they assert the exact Pusher messages a client
// would read.

// fixture is a hub and the environment every session of a test shares.
type fixture struct {
	t      testing.TB
	env    *Env
	misses []string // channels reported to Env.OnCacheMiss
}

// newFixture serves the development app, changed by edit if not nil.
func newFixture(t testing.TB, edit func(*config.App)) *fixture {
	cfg := config.Default()
	if edit != nil {
		edit(&cfg.Apps[0])
	}
	h := hub.New(hub.Config{Shards: 1, Encode: encode}, 1)
	h.SetShard(0, inline{h})
	f := &fixture{t: t}
	f.env = &Env{Hub: h, Config: &cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() int64 { return time.Now().Unix() }}
	f.env.OnCacheMiss = func(app, channel string) { f.misses = append(f.misses, app+"/"+channel) }
	return f
}

// encode turns a published message into the text frame its subscribers
// get, as the server does, except that it keeps the hub channel of
// watchlist events so that a test sees where the session published them.
func encode(m *hub.Message) []byte {
	if m.UserID != "" {
		return ws.AppendFrame(nil, ws.OpText, pusher.AppendEventUser(nil, m.Event, m.Channel, m.Data, m.UserID))
	}
	return ws.AppendFrame(nil, ws.OpText, pusher.AppendEvent(nil, m.Event, m.Channel, m.Data))
}

// inline is a hub shard that delivers at once on the caller's goroutine.
type inline struct{ h *hub.Hub }

func (s inline) Post(d hub.Delivery) { s.h.Flush(d) }
func (s inline) Do(f func())         { f() }

// publish publishes an event as the HTTP API would.
func (f *fixture) publish(channel, event, data string) {
	f.t.Helper()
	if err := f.env.Hub.Publish("app-id", hub.Publication{Channels: []string{channel}, Event: event, Data: data}); err != nil {
		f.t.Fatal(err)
	}
}

// recorder is the transport under one session: it records the payload of
// every frame the session or the hub writes, and the close code. The hub
// may write from a timer's goroutine (a delayed subscription_count), so
// what it records is guarded.
type recorder struct {
	f       *fixture
	s       Session
	discard bool // drop frames (allocation tests)

	mu     sync.Mutex // guards frames and closed
	frames []string
	closed ws.CloseCode
}

var _ Conn = (*recorder)(nil)

func (r *recorder) Send(frame []byte) {
	if r.discard {
		return
	}
	p := r.payload(frame)
	r.mu.Lock()
	r.frames = append(r.frames, p)
	r.mu.Unlock()
}

func (r *recorder) Close(code ws.CloseCode, _ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed == 0 {
		r.closed = code
	}
}

// closeCode returns the code the session closed the connection with, or 0.
func (r *recorder) closeCode() ws.CloseCode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *recorder) Shard() int                   { return 0 }
func (r *recorder) SocketSeq() uint64            { return r.s.SocketSeq() }
func (r *recorder) Deliver(f *hub.Frame)         { r.Send(f.Plain()) }
func (r *recorder) Terminate()                   { r.call().Terminate() }
func (r *recorder) Moved(ch *hub.Channel, i int) { r.s.Moved(ch, i) }

// payload returns the text of one unmasked, unfragmented text frame, the
// only kind a session writes, checking its header with ws's own encoder.
func (r *recorder) payload(frame []byte) string {
	for _, n := range []int{2, 4, 10} { // the header sizes of RFC 6455 5.2
		if len(frame) >= n && bytes.Equal(frame[:n], ws.AppendFrameHeader(nil, ws.OpText, len(frame)-n)) {
			return string(frame[n:])
		}
	}
	r.f.t.Fatalf("not one unmasked text frame: %q", frame)
	return ""
}

func (r *recorder) call() Call { return r.s.On(r.f.env, r) }

// connect opens a session and checks its pusher:connection_established.
func (f *fixture) connect() *recorder {
	f.t.Helper()
	r := &recorder{f: f}
	r.call().Init(&f.env.Config.Apps[0])
	want := fmt.Sprintf(`{"event":"pusher:connection_established","data":"{\"socket_id\":\"%s\",\"activity_timeout\":120}"}`, r.socketID())
	r.expect(want)
	return r
}

func (r *recorder) socketID() string { return r.call().SocketID() }

// send hands the session one client message.
func (r *recorder) send(msg string) { r.call().HandleText([]byte(msg)) }

// close ends the connection as a transport does.
func (r *recorder) close() { r.call().Closed() }

// take returns the messages written since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.frames
	r.frames = nil
	return out
}

// expect checks the messages written since the last take, exactly.
func (r *recorder) expect(want ...string) {
	r.f.t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		r.f.t.Errorf("socket %s got\n\t%s\nwant\n\t%s", r.socketID(), strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// subscribe builds a pusher:subscribe; auth and channelData may be empty.
func subscribe(channel, auth, channelData string) string {
	data := map[string]string{"channel": channel}
	if auth != "" {
		data["auth"] = auth
	}
	if channelData != "" {
		data["channel_data"] = channelData
	}
	return message("pusher:subscribe", "", data)
}

// message builds a client message; channel may be empty.
func message(event, channel string, data any) string {
	m := map[string]any{"event": event, "data": data}
	if channel != "" {
		m["channel"] = channel
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// channelAuth signs a subscription of r with the development app's secret
// (Pusher docs, "Auth signatures").
func (r *recorder) channelAuth(channel, channelData string) string {
	return "app-key:" + auth.Sign("app-secret", auth.ChannelMessage(r.socketID(), channel, channelData))
}

// join subscribes r to channel, signing when its kind requires it, and
// drops the replies.
func (r *recorder) join(channel, channelData string) {
	r.f.t.Helper()
	sig := ""
	if pusher.KindOf(channel).RequiresAuth() {
		sig = r.channelAuth(channel, channelData)
	}
	r.send(subscribe(channel, sig, channelData))
	if got := r.take(); len(got) == 0 || !strings.Contains(got[0], "subscription_succeeded") {
		r.f.t.Fatalf("joining %s: %q", channel, got)
	}
}

// quoted returns s as a JSON string, for the double-encoded data of
// server messages.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The server messages the tests expect, written out from the Pusher docs.

func succeeded(channel string) string {
	return event("pusher_internal:subscription_succeeded", channel, "{}")
}

func subscriptionError(channel, typ, message string, status int) string {
	return fmt.Sprintf(`{"event":"pusher:subscription_error","channel":"%s","data":{"type":"%s","error":%s,"status":%d}}`,
		channel, typ, quoted(message), status)
}

func pusherError(code pusher.Code, message string) string {
	c := "null"
	if code != pusher.NoCode {
		c = fmt.Sprint(int(code))
	}
	return `{"event":"pusher:error","data":{"code":` + c + `,"message":` + quoted(message) + `}}`
}

func event(name, channel, data string) string {
	return `{"event":"` + name + `","channel":"` + channel + `","data":` + quoted(data) + `}`
}

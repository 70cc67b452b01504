package session

import (
	"log/slog"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// Conn is the transport under a session.
type Conn interface {
	// Send writes one complete WebSocket frame. The session never modifies a
	// frame after handing it over, so the transport may keep it. Send must not
	// block.
	Send(frame []byte)
	// Close sends a close frame with code and closes the connection after the
	// close handshake (or its deadline). The transport calls Session.Closed.
	Close(code ws.CloseCode, reason string)
	// Shard is the hub shard that owns the connection.
	Shard() int
}

// Env is what every session of a server shares.
type Env struct {
	Hub    *hub.Hub
	Config *config.Config
	Logger *slog.Logger
	// Now returns the current time in Unix seconds (injected for tests).
	Now func() int64
	// OnCacheMiss, when not nil, is told of every cache miss (the hook for
	// the cache_miss webhook).
	OnCacheMiss func(app, channel string)
}

// CacheMiss reports a subscription to a cache channel with nothing cached.
func (e *Env) CacheMiss(app, channel string) {
	if e.OnCacheMiss != nil {
		e.OnCacheMiss(app, channel)
	}
}

// Session is the protocol state of one connection. Keep it small: there is
// one per connection, idle or not.
type Session struct {
	conn   Conn
	env    *Env
	app    *config.App
	seq    uint64
	subs   []subscription
	user   *user
	rate   rateWindow
	closed bool
}

// subscription is one channel the connection has joined.
type subscription struct {
	ch     *hub.Channel
	index  int    // position in the channel's list for our shard
	member string // presence user id; "" on other channels
}

// Init prepares s for a new connection of app and sends
// pusher:connection_established. s may be a zero Session embedded in the
// transport's connection struct.
func (s *Session) Init(env *Env, conn Conn, app *config.App) {
	*s = Session{env: env, conn: conn, app: app}
	env.Hub.Connected(app.ID)
	var id string
	id, s.seq = env.Hub.NewSocketID()
	timeout := int(env.Config.ActivityTimeout.Seconds())
	s.send(pusher.ConnectionEstablished(nil, id, timeout))
}

// SocketID returns the connection's socket_id.
func (s *Session) SocketID() string { return s.env.Hub.SocketID(s.seq) }

// SocketSeq implements hub.Subscriber.
func (s *Session) SocketSeq() uint64 { return s.seq }

// Deliver implements hub.Subscriber: it writes a published frame.
func (s *Session) Deliver(frame []byte) { s.conn.Send(frame) }

// Terminate implements hub.Subscriber (terminate_connections).
func (s *Session) Terminate() {
	s.conn.Close(ws.CloseCode(pusher.ReconnectNow), "terminated by the server")
}

// Moved implements hub.Subscriber.
func (s *Session) Moved(ch *hub.Channel, index int) {
	for i := range s.subs {
		if s.subs[i].ch == ch {
			s.subs[i].index = index
			return
		}
	}
}

// Ping sends pusher:ping; the transport calls it when the connection has
// been silent for the activity timeout.
func (s *Session) Ping() { s.send(pusher.AppendPing(nil)) }

// Shutdown tells the client to reconnect elsewhere (pusher:error 4200, then
// close 4200): pusher-js reconnects at once.
func (s *Session) Shutdown() {
	s.sendError(pusher.ReconnectNow, "server is shutting down")
	s.conn.Close(ws.CloseCode(pusher.ReconnectNow), "server is shutting down")
}

// Closed leaves every channel. The transport calls it once the connection
// is gone or closing, from the goroutine that owns the session and never
// from inside a hub delivery.
func (s *Session) Closed() {
	if s.closed {
		return
	}
	s.closed = true
	for len(s.subs) > 0 {
		s.leave(len(s.subs) - 1)
	}
	s.subs = nil
	s.signout()
	s.env.Hub.Disconnected(s.app.ID)
}

// send wraps a Pusher message in a text frame and writes it.
func (s *Session) send(msg []byte) {
	if s.closed {
		return
	}
	s.conn.Send(ws.AppendFrame(make([]byte, 0, len(msg)+10), ws.OpText, msg))
}

func (s *Session) sendError(code pusher.Code, message string) {
	s.send(pusher.AppendError(nil, code, message))
}

package session

import (
	"log/slog"
	"sync/atomic"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// Conn is the transport under a session. It is also what the hub holds
// for the connection: the transport forwards hub.Subscriber calls to its
// session (SocketSeq, Moved) or its own writes (Deliver).
type Conn interface {
	hub.Subscriber
	// Send writes one complete WebSocket frame. The session never modifies a
	// frame after handing it over, so the transport may keep it. Send must not
	// block.
	Send(frame []byte)
	// Close sends a close frame with code and closes the connection after the
	// close handshake (or its deadline). The transport calls Closed.
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

	// clientEvents counts each app's client events per second on this node.
	clientEvents appRates
	// live holds the limits a reload set (SetLimits); nil means
	// Config.Limits.
	live atomic.Pointer[config.Limits]
}

// SetLimits makes every connection apply l's per-connection limits
// (client_events_per_second, max_subscriptions_per_connection) from its
// next message on: a lowered cap refuses what comes next and takes back
// nothing already granted. It is safe to call while connections run.
func (e *Env) SetLimits(l config.Limits) { e.live.Store(&l) }

// limits returns the limits in force: one atomic load, no lock, on the
// loops' path.
func (e *Env) limits() *config.Limits {
	if l := e.live.Load(); l != nil {
		return l
	}
	return &e.Config.Limits
}

// CacheMiss reports a subscription to a cache channel with nothing cached.
func (e *Env) CacheMiss(app, channel string) {
	if e.OnCacheMiss != nil {
		e.OnCacheMiss(app, channel)
	}
}

// Session is the protocol state of one connection. There is one per
// connection, idle or not, embedded in the transport's connection struct,
// so it holds only what is the connection's own: what every connection
// shares (Env) and the transport itself are lent to each call (On).
type Session struct {
	app *config.App
	seq uint64
	// one and more hold the subscriptions (see subs.go): one while the
	// connection has never held two at a time, more from then on.
	one    [1]subscription
	more   *[]subscription
	x      *extra // the signed-in user and what waits for the store, or nil
	rate   window
	closed bool
	// nsubs counts subs; nclient those the client asked for, which
	// limits.max_subscriptions_per_connection caps (see subs.go); waits
	// numbers the joins that waited (see whenReady). They sit in what would
	// be the padding after closed.
	nsubs, nclient, waits uint16
}

// subscription is one channel the connection has joined.
type subscription struct {
	ch    *hub.Channel
	index int32  // position in the channel's list for our shard
	wait  uint16 // a pending subscription's wait (see whenReady)
	// A presence channel's member is kept apart (extra.members), so that
	// a subscription is 16 bytes.
}

// Call is a session at work: its state plus the environment and transport
// lent to it for one call. It lives on the stack.
type Call struct {
	*Session
	env  *Env
	conn Conn
}

// On lends s the environment and transport for one call.
func (s *Session) On(env *Env, c Conn) Call { return Call{s, env, c} }

// Init prepares the session of a new connection of app and sends
// pusher:connection_established.
func (s Call) Init(app *config.App) {
	*s.Session = Session{app: app}
	s.env.Hub.Connected(app.ID)
	var id string
	id, s.seq = s.env.Hub.NewSocketID()
	timeout := int(s.env.Config.ActivityTimeout.Seconds())
	s.send(pusher.ConnectionEstablished(newMessage(), id, timeout))
	s.tellConnected()
}

// SocketID returns the connection's socket_id.
func (s Call) SocketID() string { return s.env.Hub.SocketID(s.seq) }

// SocketSeq returns the local part of the socket_id (for hub.Subscriber).
func (s *Session) SocketSeq() uint64 { return s.seq }

// Terminate closes the connection for terminate_connections with 4009, a
// code pusher-js does not reconnect after: the backend wants the user out.
func (s Call) Terminate() {
	s.sendError(pusher.Unauthorized, "connection terminated by the server")
	s.conn.Close(ws.CloseCode(pusher.Unauthorized), "terminated by the server")
}

// Disable closes the connection with 4003 if it belongs to the app with id
// appID: the app was disabled or removed while the connection was open.
func (s Call) Disable(appID string) {
	if s.closed || s.app == nil || s.app.ID != appID {
		return
	}
	s.sendError(pusher.AppDisabled, "app is disabled")
	s.conn.Close(ws.CloseCode(pusher.AppDisabled), "app is disabled")
}

// Moved records the connection's new position in ch's list (for
// hub.Subscriber).
func (s *Session) Moved(ch *hub.Channel, index int) {
	if i := s.find(ch.Name()); i >= 0 {
		s.subs()[i].index = int32(index)
	}
}

// Ping sends pusher:ping; the transport calls it when the connection has
// been silent for the activity timeout.
func (s Call) Ping() { s.sendFrame(pingFrame) }

// The frames of pusher:ping and pusher:pong never change: they are encoded
// once and shared (read-only) by every connection, so keeping an idle
// connection alive allocates nothing.
var (
	pingFrame = ws.AppendFrame(nil, ws.OpText, pusher.AppendPing(nil))
	pongFrame = ws.AppendFrame(nil, ws.OpText, pusher.AppendPong(nil))
)

// sendFrame writes a ready-made frame.
func (s Call) sendFrame(frame []byte) {
	if !s.closed {
		s.conn.Send(frame)
	}
}

// Shutdown tells the client to reconnect elsewhere (pusher:error 4200, then
// close 4200): pusher-js reconnects at once.
func (s Call) Shutdown() {
	s.sendError(pusher.ReconnectNow, "server is shutting down")
	s.conn.Close(ws.CloseCode(pusher.ReconnectNow), "server is shutting down")
}

// Closed leaves every channel. The transport calls it once the connection
// is gone or closing, from the goroutine that owns the session and never
// from inside a hub delivery. Joins and a sign-in still waiting for the
// store are cancelled: each undoes itself when the store answers.
func (s Call) Closed() {
	if s.closed {
		return
	}
	s.closed = true // from now on the set keeps its layout while it empties
	for i := 0; i < len(s.subs()); {
		if s.subs()[i].ch == nil {
			i++
			continue
		}
		s.leave(i) // moves another subscription into i, or empties it
	}
	s.one[0], s.more = subscription{}, nil
	s.signout()
	s.x = nil
	s.tellClosed()
	s.env.Hub.Disconnected(s.app.ID)
}

// send wraps a Pusher message, built behind the room of newMessage, in a
// text frame in place and writes it.
func (s Call) send(msg []byte) {
	if s.closed {
		return
	}
	s.conn.Send(ws.PrependFrameHeader(msg, ws.OpText))
}

// newMessage returns the buffer send needs a message appended to: room for
// the frame header, and capacity for the session's usual answers, so that
// a frame costs one allocation where it cost two.
func newMessage() []byte { return make([]byte, ws.FrameRoom, ws.FrameRoom+200) }

func (s Call) sendError(code pusher.Code, message string) {
	s.send(pusher.AppendError(newMessage(), code, message))
}

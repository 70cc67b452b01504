package hub

// Console is told of what happens on this node as it happens, for the
// dashboard's debug console (docs/dashboard.md). Like an Observer it is
// called from epoll loops and request goroutines, sometimes with locks
// held: every method must return at once, without blocking.
//
// A console is attached only while someone watches it. Every place that
// reports to it first loads the attached one (Hub.Console): one atomic load
// and a nil check when nobody watches, so an unwatched console costs the
// publish and connection paths nothing else.
type Console interface {
	// Connected is a new connection of app with socketID, carried by
	// transport: "websocket", or pusher-js's HTTP fallbacks "xhr_streaming"
	// and "xhr_polling".
	Connected(app, socketID, transport string)
	// Disconnected is the end of a connection; reason is one of the labels
	// of roost_connections_closed_total (client, timeout, ...).
	Disconnected(app, socketID, reason string)
	// Subscribed and Unsubscribed are a connection joining and leaving a
	// channel.
	Subscribed(app, channel, socketID string)
	Unsubscribed(app, channel, socketID string)
	// Published is an event published on this node, by the HTTP API or a
	// client (client- events), before it is sent to the broker.
	Published(app string, p Publication)
	// MemberAdded and MemberRemoved are a presence channel's first and last
	// connection of a user, as the webhooks report them.
	MemberAdded(app, channel, user string)
	MemberRemoved(app, channel, user string)
}

// consoleRef boxes a Console for an atomic.Pointer.
type consoleRef struct{ c Console }

// SetConsole attaches c to the hub, or detaches the console when c is nil.
// It may be called at any time, from any goroutine.
func (h *Hub) SetConsole(c Console) {
	if c == nil {
		h.console.Store(nil)
		return
	}
	h.console.Store(&consoleRef{c})
}

// Console returns the attached console, or nil when none is.
func (h *Hub) Console() Console {
	if r := h.console.Load(); r != nil {
		return r.c
	}
	return nil
}

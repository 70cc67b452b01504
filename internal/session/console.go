package session

// The reports to the dashboard's debug console (hub.Console). Each loads
// the attached console once and does nothing more when none is open.

// closeReasoner is implemented by a transport's connection that can tell
// why it ended, as a label of roost_connections_closed_total.
type closeReasoner interface {
	CloseReason() string
}

// transportNamer is implemented by a transport's connection that is not a
// WebSocket (the HTTP fallbacks), to name itself in the console.
type transportNamer interface {
	TransportName() string
}

// tellConnected reports a new connection and what carries it.
func (s Call) tellConnected() {
	c := s.env.Hub.Console()
	if c == nil {
		return
	}
	transport := "websocket"
	if n, ok := s.conn.(transportNamer); ok {
		transport = n.TransportName()
	}
	c.Connected(s.app.ID, s.SocketID(), transport)
}

// tellClosed reports the end of the connection, with the transport's
// reason when it knows one.
func (s Call) tellClosed() {
	c := s.env.Hub.Console()
	if c == nil {
		return
	}
	reason := "client"
	if r, ok := s.conn.(closeReasoner); ok {
		reason = r.CloseReason()
	}
	c.Disconnected(s.app.ID, s.SocketID(), reason)
}

// tellSubscribed reports the connection joining channel.
func (s Call) tellSubscribed(channel string) {
	if c := s.env.Hub.Console(); c != nil {
		c.Subscribed(s.app.ID, channel, s.SocketID())
	}
}

// tellUnsubscribed reports the connection leaving channel.
func (s Call) tellUnsubscribed(channel string) {
	if c := s.env.Hub.Console(); c != nil {
		c.Unsubscribed(s.app.ID, channel, s.SocketID())
	}
}

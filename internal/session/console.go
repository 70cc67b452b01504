package session

// The reports to the dashboard's debug console (hub.Console). Each loads
// the attached console once and does nothing more when none is open.

// closeReasoner is implemented by a transport's connection that can tell
// why it ended, as a label of roost_connections_closed_total.
type closeReasoner interface {
	CloseReason() string
}

// tellConnected reports a new connection.
func (s Call) tellConnected() {
	if c := s.env.Hub.Console(); c != nil {
		c.Connected(s.app.ID, s.SocketID())
	}
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

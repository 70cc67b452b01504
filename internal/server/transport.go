package server

import (
	"strings"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// policy is the connection policy both transports apply, read from the
// configuration once.
func policy(c *config.Config) transport.Policy {
	return transport.Policy{
		MaxMessage:      c.Limits.MaxMessageSize,
		WriteBacklog:    c.Limits.WriteBacklog,
		WriteTimeout:    c.Limits.WriteTimeout,
		ActivityTimeout: c.ActivityTimeout,
		PongWait:        c.PongWait,
		CloseTimeout:    c.Limits.HandshakeTimeout,
	}
}

// encode turns a message into the one frame every subscriber receives.
func encode(m *hub.Message) []byte {
	payload := make([]byte, 0, len(m.Event)+len(m.Channel)+len(m.Data)+len(m.Data)/8+64)
	channel := m.Channel
	if strings.HasPrefix(channel, hub.WatchlistPrefix) {
		channel = "" // watchlist events belong to the connection, not a channel
	}
	if m.UserID != "" {
		payload = pusher.AppendEventUser(payload, m.Event, channel, m.Data, m.UserID)
	} else {
		payload = pusher.AppendEvent(payload, m.Event, channel, m.Data)
	}
	return ws.AppendFrame(make([]byte, 0, len(payload)+10), ws.OpText, payload)
}

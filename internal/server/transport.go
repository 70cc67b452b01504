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
		SendBuffer:      c.Limits.SendBuffer,
		Budget:          transport.NewBudget(backlogBudget(c.Limits)),
		WriteTimeout:    c.Limits.WriteTimeout,
		ActivityTimeout: c.ActivityTimeout,
		PongWait:        c.PongWait,
		CloseTimeout:    c.Limits.HandshakeTimeout,
	}
}

// defaultBacklogBudget is the node's backlog budget when there is no
// memory ceiling to derive it from.
const defaultBacklogBudget = 64 << 20

// backlogBudget is limits.write_backlog_total, or its default: a quarter
// of the memory ceiling the admission door applies, 64 MiB without one.
func backlogBudget(l config.Limits) int64 {
	if l.WriteBacklogTotal > 0 {
		return int64(l.WriteBacklogTotal)
	}
	if ceiling := memoryCeiling(l); ceiling > 0 {
		return int64(ceiling / 4)
	}
	return defaultBacklogBudget
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

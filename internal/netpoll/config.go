package netpoll

import (
	"github.com/roostproject/roost/internal/connstats"
	"log/slog"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
)

// Config holds what a Poller needs. All fields are required unless noted.
type Config struct {
	// Loops is the number of epoll loops (one goroutine each).
	Loops int
	// FirstShard is the hub shard id of loop 0; loop i is shard FirstShard+i.
	FirstShard int
	// Hub receives subscriptions and delivers publishes.
	Hub *hub.Hub
	// Env is shared by every session.
	Env *session.Env
	// MaxMessage is the largest client message, in bytes.
	MaxMessage int
	// WriteBacklog is how many bytes may wait for a slow socket before the
	// connection is closed.
	WriteBacklog int
	// WriteTimeout closes a connection whose writes stay blocked this long.
	WriteTimeout time.Duration
	// ActivityTimeout: after this much silence the server pings the client.
	ActivityTimeout time.Duration
	// PongWait: after a ping, this much more silence closes with 4201.
	PongWait time.Duration
	// CloseTimeout bounds the WebSocket close handshake.
	CloseTimeout time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Stats, when not nil, counts connection events.
	Stats *connstats.Stats
	// OnClose, when not nil, is called on the loop's goroutine with the
	// descriptor of each socket Add was given, just before it is closed.
	OnClose func(fd int)
}

// serverPingGrace is how much longer than the activity timeout the server
// waits before pinging, so that a client that pings on its own schedule
// (pusher-js does, after activity_timeout) is never pinged as well.
func (c *Config) serverPingGrace() time.Duration {
	g := c.ActivityTimeout / 10
	if g < time.Second {
		g = time.Second
	}
	return g
}

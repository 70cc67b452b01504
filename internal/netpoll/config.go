package netpoll

import (
	"log/slog"
	"net/netip"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
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
	// Policy holds the limits and timeouts of every connection.
	Policy transport.Policy
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Uring makes each loop write a publish to its subscribers with one
	// io_uring submission instead of one write(2) each (Linux 5.19 or
	// later, io_uring allowed by kernel.io_uring_disabled).
	Uring bool
	// Stats, when not nil, counts connection events.
	Stats *connstats.Stats
	// MaxHandshakes bounds the sockets the loops hold whose request head is
	// not yet decided (accepted, not yet upgraded, refused or handed over),
	// each loop an equal share of at least one; a loop at its share stops
	// accepting until one of them is decided. Zero means no bound.
	MaxHandshakes int
	// OnClose, when not nil, is called on the loop's goroutine with the
	// descriptor of each socket Add was given, just before it is closed.
	OnClose func(fd int)
	// ProxyHeader, when not nil, says whether a connection the loops
	// accept from this peer starts with a PROXY protocol header
	// (proxyproto), to be read before its request head.
	ProxyHeader func(peer netip.Addr) bool
	// ProxyRefused, when not nil, is told of a connection closed because
	// its PROXY header was invalid (err wraps proxyproto.ErrInvalid).
	ProxyRefused func(peer netip.Addr, err error)
}

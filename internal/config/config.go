package config

import "time"

// Config is everything one roost node needs to start. It is built by Load
// (or Default) and then only read: each component takes the part it needs.
type Config struct {
	// Addr is the TCP listen address, "host:port", for the WebSocket
	// endpoint and the HTTP API. An empty host listens on every interface;
	// port 0 picks a free port. Zero value means "127.0.0.1:6001": loopback,
	// because the built-in development app's secret is public.
	Addr string

	// TLS makes the server terminate TLS itself. Zero value means plain
	// TCP (most deployments terminate TLS at a proxy).
	TLS TLS

	// Transport picks how WebSocket connections are served: "epoll" (one
	// event loop per core owns idle sockets, Linux only), "portable" (one
	// goroutine per connection; any OS, and the only path that serves TLS)
	// or "auto" (epoll on Linux without TLS, else portable). Zero value
	// means "auto".
	Transport string

	// Loops is the number of epoll loops (docs/design.md, "One loop per core
	// owns its connections"). Zero value means runtime.GOMAXPROCS(0), one
	// loop per usable core.
	Loops int

	// ActivityTimeout is how long a client may stay silent before it must
	// send pusher:ping. It is sent to clients, in whole seconds, as
	// activity_timeout in pusher:connection_established (Pusher Channels
	// protocol, "Ping and pong"), so it must be a whole number of seconds of
	// at least 1s. Zero value means 120s.
	ActivityTimeout time.Duration

	// PongWait is how long past ActivityTimeout a silent connection is kept
	// before it is closed with 4201. Zero value means 30s.
	PongWait time.Duration

	// ShutdownTimeout bounds a graceful shutdown: connections still open
	// after it are dropped. Zero value means 10s.
	ShutdownTimeout time.Duration

	// GCPercent is the Go garbage collector's target (as GOGC): the heap may
	// grow this many percent above the live data before a collection. An
	// idle-connection server has a large, long-lived heap and allocates
	// little, so a lower target buys steady-state RSS for little CPU; the
	// GOGC environment variable, when set, wins. Zero value means 50.
	GCPercent int

	// Limits caps what one client or request may cost. Zero value means
	// the defaults documented on each Limits field.
	Limits Limits

	// Apps are the Pusher apps this server serves. Zero value (an empty
	// list) means one development app; see Default.
	Apps []App

	// Log configures the server's structured log. Zero value means info
	// level, text format.
	Log Log

	// Redis connects nodes into a cluster (docs/design.md, "Across a
	// cluster"). Zero value means a single node with the in-process broker.
	Redis Redis

	// Warnings are problems that did not stop Load, such as ROOST_*
	// variables that are not settings; the server logs them at start.
	Warnings []string

	// index makes AppByKey and AppByID map lookups; built by Load and
	// Default.
	index appIndex
}

// TLS names the certificate and key for serving wss:// and https://
// directly. Both files must be set, or neither.
type TLS struct {
	// CertFile is the path of a PEM certificate chain. Zero value means no
	// TLS.
	CertFile string
	// KeyFile is the path of the PEM private key for CertFile. Zero value
	// means no TLS.
	KeyFile string
}

// Enabled reports whether TLS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" }

// Limits bounds memory and work per connection and per request, so one
// client cannot cost the server more than it budgets for.
type Limits struct {
	// MaxMessageSize is the largest WebSocket message a client may send,
	// in bytes (after reassembling fragments, RFC 6455 section 5.4); larger
	// ones close the connection with 1009. Zero value means 64 KiB.
	MaxMessageSize int

	// MaxBodySize is the largest HTTP API request body, in bytes; larger
	// requests get 413 before the body is read. Zero value means 1 MiB
	// (a batch of 10 events of 10 KB data fits with room to spare).
	MaxBodySize int

	// MaxEventData is the largest data of one event, in bytes, from the
	// HTTP API or a client event. Zero value means 10 KiB, Pusher's limit
	// (Pusher docs, "HTTP API reference": data up to 10 KB).
	MaxEventData int

	// WriteBacklog is how many bytes may wait to be written to one slow
	// connection before it is closed (docs/design.md, "Writes go straight to
	// the socket"). Zero value means 1 MiB.
	WriteBacklog int

	// WriteTimeout closes a connection whose writes stay blocked this long
	// (docs/design.md, "Writes go straight to the socket"). Zero value means
	// 10s.
	WriteTimeout time.Duration

	// HandshakeTimeout is the HTTP server's ReadHeaderTimeout and how long
	// to wait for the peer's close frame in the WebSocket closing handshake
	// (RFC 6455 section 7.1.1). Zero value means 5s.
	HandshakeTimeout time.Duration

	// MaxHeaderBytes is the HTTP server's MaxHeaderBytes, in bytes, for the
	// upgrade request and API requests. Zero value means 16 KiB.
	MaxHeaderBytes int

	// ClientEventsPerSecond is how many client events one connection may
	// send per second before it gets pusher:error 4301 (Pusher docs,
	// "Client events"). Zero value means 10.
	ClientEventsPerSecond int
}

// Log configures the server's log/slog output.
type Log struct {
	// Level is the lowest level logged: "debug", "info", "warn" or "error".
	// Zero value means "info".
	Level string
	// Format is "text" (logfmt-like, for people) or "json" (for log
	// collectors). Zero value means "text".
	Format string
}

// Redis configures the Redis broker that joins several nodes into one
// cluster (docs/design.md, "Across a cluster").
type Redis struct {
	// URL is "redis://[user:password@]host:port[/db]" or "rediss://..." for
	// TLS. Zero value means no Redis: one node, in-process broker.
	URL string
	// Prefix starts every Redis key and channel name roost uses, so several
	// clusters can share one Redis. Zero value means "roost".
	Prefix string
}

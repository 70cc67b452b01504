package config

import "time"

// Config is everything one roost node needs to start. It is built by Load
// (or Default) and then only read: each component takes the part it needs.
//
// Each setting is declared once, by its field and its tags (see field in
// schema.go): the tags give its YAML key, ROOST_* variable, flag, default,
// checks and one line of help, and everything else is generated from them.
// An unset (zero) setting gets the default in its tag.
type Config struct {
	// Addr is the TCP listen address, "host:port", for the WebSocket
	// endpoint and the HTTP API. An empty host listens on every interface;
	// port 0 picks a free port. The default is loopback, because the
	// built-in development app's secret is public.
	Addr string `yaml:"addr" env:"ROOST_ADDR" flag:"addr" default:"127.0.0.1:6001" check:"hostport" help:"listen address for WebSocket clients and the HTTP API; \":6001\" accepts other hosts, port 0 picks a free port"`

	// TLS makes the server terminate TLS itself. Zero value means plain
	// TCP (most deployments terminate TLS at a proxy).
	TLS TLS `yaml:"tls" help:"serve wss:// and https:// directly: set both files, or neither and put a TLS-terminating proxy in front"`

	// Transport picks how WebSocket connections are served: "epoll" (one
	// event loop per core owns idle sockets, Linux only), "portable" (one
	// goroutine per connection; any OS, and the only path that serves TLS)
	// or "auto" (epoll on Linux without TLS, else portable).
	Transport string `yaml:"transport" env:"ROOST_TRANSPORT" flag:"transport" default:"auto" check:"transport" help:"auto (epoll on Linux without TLS, else portable), epoll (Linux) or portable (a goroutine per connection, any OS)"`

	// Loops is the number of epoll loops. Zero value means
	// runtime.GOMAXPROCS(0), one loop per usable core.
	Loops int `yaml:"loops" env:"ROOST_LOOPS" default:"0" check:"min=0" help:"event loops of the epoll transport; 0 means one per usable CPU (GOMAXPROCS)"`

	// ActivityTimeout is how long a client may stay silent before it must
	// send pusher:ping. It is sent to clients, in whole seconds, as
	// activity_timeout in pusher:connection_established (Pusher Channels
	// protocol, "Ping and pong"), so it must be a whole number of seconds of
	// at least 1s.
	ActivityTimeout time.Duration `yaml:"activity_timeout" env:"ROOST_ACTIVITY_TIMEOUT" default:"120s" check:"seconds" help:"a client pings after this much silence; sent to clients in whole seconds"`

	// PongWait is how long past ActivityTimeout a silent connection is kept
	// before it is closed with 4201.
	PongWait time.Duration `yaml:"pong_wait" env:"ROOST_PONG_WAIT" default:"30s" check:"positive" help:"a client silent for activity_timeout + pong_wait is disconnected (4201)"`

	// ShutdownTimeout bounds a graceful shutdown: connections still open
	// after it are dropped.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout" env:"ROOST_SHUTDOWN_TIMEOUT" default:"10s" check:"positive" help:"a graceful shutdown waits this long for connections to drain"`

	// GCPercent is the Go garbage collector's target (as GOGC): the heap may
	// grow this many percent above the live data before a collection. An
	// idle-connection server has a large, long-lived heap and allocates
	// little, so a lower target buys steady-state RSS for little CPU; the
	// GOGC environment variable, when set, wins.
	GCPercent int `yaml:"gc_percent" env:"ROOST_GC_PERCENT" default:"50" check:"min=10,max=1000" help:"Go GC target in percent, like GOGC (which wins when set): lower keeps idle RSS closer to the live heap"`

	// Limits caps what one client or request may cost.
	Limits Limits `yaml:"limits" help:"what one client or request may cost"`

	// Apps are the Pusher apps this server serves. Zero value (an empty
	// list) means one development app; see Default.
	Apps []App `yaml:"apps" help:"Pusher apps; without any, one development app whose secret is public (id app-id, key app-key, secret app-secret). ROOST_APP_* variables define one app that replaces these"`

	// Webhooks tunes the timing, batching and retries of every app's
	// webhooks; the URLs are per app (apps[].webhooks).
	Webhooks Webhooks `yaml:"webhooks" help:"timing, batching and retries of the apps' webhooks (apps[].webhooks lists the URLs)"`

	// Log configures the server's structured log.
	Log Log `yaml:"log" help:"the server's log, on standard error"`

	// Redis connects nodes into a cluster. Zero value means a single node
	// with the in-process broker.
	Redis Redis `yaml:"redis" help:"join nodes into a cluster through Redis"`

	// Warnings are problems that did not stop Load, such as ROOST_*
	// variables that are not settings; the server logs them at start.
	Warnings []string `yaml:"-"`

	// index makes AppByKey and AppByID map lookups; built by Load and
	// Default.
	index appIndex
}

// TLS names the certificate and key for serving wss:// and https://
// directly. Both files must be set, or neither.
type TLS struct {
	// CertFile is the path of a PEM certificate chain. Zero value means no
	// TLS.
	CertFile string `yaml:"cert_file" env:"ROOST_TLS_CERT" flag:"tls-cert" default:"" help:"PEM certificate chain file; needs transport auto or portable"`
	// KeyFile is the path of the PEM private key for CertFile. Zero value
	// means no TLS.
	KeyFile string `yaml:"key_file" env:"ROOST_TLS_KEY" flag:"tls-key" default:"" help:"PEM private key file of cert_file"`
}

// Enabled reports whether TLS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" }

// Limits bounds memory and work per connection and per request, so one
// client cannot cost the server more than it budgets for. Sizes are in
// bytes.
type Limits struct {
	// MaxMessageSize is the largest WebSocket message a client may send,
	// in bytes (after reassembling fragments, RFC 6455 section 5.4); larger
	// ones close the connection with 1009.
	MaxMessageSize int `yaml:"max_message_size" env:"ROOST_MAX_MESSAGE_SIZE" default:"64KiB" unit:"bytes" check:"positive" help:"largest WebSocket message a client may send; larger ones close with 1009"`

	// MaxBodySize is the largest HTTP API request body, in bytes; larger
	// requests get 413 before the body is read. The default fits a batch of
	// 10 events of 10 KB data with room to spare.
	MaxBodySize int `yaml:"max_body_size" env:"ROOST_MAX_BODY_SIZE" default:"1MiB" unit:"bytes" check:"positive" help:"largest HTTP API request body; larger ones get 413"`

	// MaxEventData is the largest data of one event, in bytes, from the
	// HTTP API or a client event. The default is Pusher's limit (Pusher
	// docs, "HTTP API reference": data up to 10 KB).
	MaxEventData int `yaml:"max_event_data" env:"ROOST_MAX_EVENT_DATA" default:"10KiB" unit:"bytes" check:"positive" help:"largest data of one event, from the API or a client (Pusher's limit)"`

	// WriteBacklog is how many bytes may wait to be written to one slow
	// connection before it is closed.
	WriteBacklog int `yaml:"write_backlog" env:"ROOST_WRITE_BACKLOG" default:"1MiB" unit:"bytes" check:"positive" help:"bytes queued for a slow client before it is closed"`

	// WriteTimeout closes a connection whose writes stay blocked this long.
	WriteTimeout time.Duration `yaml:"write_timeout" env:"ROOST_WRITE_TIMEOUT" default:"10s" check:"positive" help:"a connection whose writes stay blocked this long is closed"`

	// HandshakeTimeout is the HTTP server's ReadHeaderTimeout and how long
	// to wait for the peer's close frame in the WebSocket closing handshake
	// (RFC 6455 section 7.1.1).
	HandshakeTimeout time.Duration `yaml:"handshake_timeout" env:"ROOST_HANDSHAKE_TIMEOUT" default:"5s" check:"positive" help:"time to read HTTP request headers, and to wait for a client's close frame"`

	// MaxHeaderBytes is the HTTP server's MaxHeaderBytes, in bytes, for the
	// upgrade request and API requests.
	MaxHeaderBytes int `yaml:"max_header_bytes" env:"ROOST_MAX_HEADER_BYTES" default:"16KiB" unit:"bytes" check:"positive" help:"largest HTTP request headers"`

	// ClientEventsPerSecond is how many client events one connection may
	// send per second before it gets pusher:error 4301 (Pusher docs,
	// "Client events").
	ClientEventsPerSecond int `yaml:"client_events_per_second" env:"ROOST_CLIENT_EVENTS_PER_SECOND" default:"10" check:"positive" help:"client events one connection may send per second; more get error 4301"`
}

// Log configures the server's log/slog output.
type Log struct {
	// Level is the lowest level logged: "debug", "info", "warn" or "error".
	Level string `yaml:"level" env:"ROOST_LOG_LEVEL" default:"info" check:"log_level" help:"lowest level logged: debug, info, warn or error"`
	// Format is "text" (logfmt-like, for people) or "json" (for log
	// collectors).
	Format string `yaml:"format" env:"ROOST_LOG_FORMAT" default:"text" check:"log_format" help:"text (for people) or json (for log collectors)"`
}

// Redis configures the Redis broker that joins several nodes into one
// cluster.
type Redis struct {
	// URL is "redis://[user:password@]host:port[/db]" or "rediss://..." for
	// TLS. Zero value means no Redis: one node, in-process broker.
	URL string `yaml:"url" env:"ROOST_REDIS_URL" flag:"redis-url" default:"" check:"redis_url" help:"redis://[user:password@]host:port[/db], or rediss:// for TLS; empty means one node with an in-process broker"`
	// Prefix starts every Redis key and channel name roost uses, so several
	// clusters can share one Redis.
	Prefix string `yaml:"prefix" env:"ROOST_REDIS_PREFIX" flag:"redis-prefix" default:"roost" help:"starts every Redis key and topic, so clusters can share one Redis"`
}

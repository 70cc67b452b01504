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
	// event loop per core owns idle sockets, TLS or not; Linux only),
	// "epoll+uring" (epoll, writing a publish's frames to its plain
	// subscribers with io_uring; Linux 5.19 or later),
	// "portable" (one goroutine per connection; any OS) or "auto" (epoll on
	// Linux, with io_uring where the kernel allows it, else portable).
	Transport string `yaml:"transport" env:"ROOST_TRANSPORT" flag:"transport" default:"auto" check:"transport" help:"auto (epoll+uring where the kernel allows io_uring, else epoll on Linux, else portable), epoll (Linux, write(2) only), epoll+uring (epoll writing fan-out with io_uring, Linux 5.19+) or portable (a goroutine per connection, any OS)"`

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

	// NodeTTL is how long a cluster node's heartbeat lives: a node silent
	// this long is taken for dead and reaped, and the one that reaps it
	// sends its undelivered webhooks. It is refreshed every NodeTTL/3.
	NodeTTL time.Duration `yaml:"node_ttl" env:"ROOST_NODE_TTL" default:"15s" check:"positive" help:"in a cluster, a node whose heartbeat is this old is taken for dead: its members are removed and its undelivered webhooks sent by another node"`

	// GCPercent is the Go garbage collector's target (as GOGC): the heap may
	// grow this many percent above the live data before a collection. An
	// idle-connection server has a large, long-lived heap and allocates
	// little, so a lower target buys steady-state RSS for little CPU; the
	// GOGC environment variable, when set, wins.
	GCPercent int `yaml:"gc_percent" env:"ROOST_GC_PERCENT" default:"50" check:"min=10,max=1000" help:"Go GC target in percent, like GOGC (which wins when set): lower keeps idle RSS closer to the live heap"`

	// Limits caps what one client or request may cost.
	Limits Limits `yaml:"limits" help:"what one client or request may cost; SIGHUP applies a change to those that say so (to new connections and requests: a lowered cap closes nothing), the others need a restart"`

	// TrustedProxies are the proxies and load balancers, as CIDRs or
	// addresses, whose word about the client's address is taken (from
	// ForwardedHeader, or a PROXY header with ProxyProtocol). Zero value
	// (none) means every connection is known by its peer's address.
	TrustedProxies []string `yaml:"trusted_proxies" env:"ROOST_TRUSTED_PROXIES" default:"" check:"cidrs" help:"proxies (CIDRs or addresses) whose word about the client's address is taken, from forwarded_header or a PROXY header; empty means every client is its peer's address"`

	// ForwardedHeader is the request header a trusted proxy names the
	// client in: "x-forwarded-for" or "forwarded" (RFC 7239). Only that one
	// is read; set the proxy to write it.
	ForwardedHeader string `yaml:"forwarded_header" env:"ROOST_FORWARDED_HEADER" default:"x-forwarded-for" check:"forwarded_header" help:"x-forwarded-for or forwarded (RFC 7239): the one header trusted_proxies name the client in; the rightmost address not itself a trusted proxy is the client"`

	// ProxyProtocol makes roost read a PROXY protocol header (version 1 or
	// 2) at the start of every connection from a trusted proxy, and refuse
	// one without a valid header. Connections from other peers are served
	// by their own address.
	ProxyProtocol bool `yaml:"proxy_protocol" env:"ROOST_PROXY_PROTOCOL" default:"false" help:"read a PROXY protocol v1/v2 header (HAProxy, AWS NLB) on each connection from trusted_proxies and refuse one without; other peers are served by their own address"`

	// Apps are the Pusher apps this server serves. Zero value (an empty
	// list) means one development app; see Default.
	Apps []App `yaml:"apps" help:"Pusher apps; without any, one development app whose secret is public (id app-id, key app-key, secret app-secret). ROOST_APP_* variables define one app that replaces these. SIGHUP applies a change to the apps without a restart"`

	// Webhooks tunes the timing, batching and retries of every app's
	// webhooks; the URLs are per app (apps[].webhooks).
	Webhooks Webhooks `yaml:"webhooks" help:"timing, batching and retries of the apps' webhooks (apps[].webhooks lists the URLs)"`

	// Log configures the server's structured log.
	Log Log `yaml:"log" help:"the server's log, on standard error"`

	// Redis connects nodes into a cluster. Zero value means a single node
	// with the in-process broker.
	Redis Redis `yaml:"redis" help:"join nodes into a cluster through Redis"`

	// NATS connects nodes into a cluster through NATS and its JetStream
	// key-value buckets, instead of Redis. Zero value means no NATS.
	NATS NATS `yaml:"nats" help:"join nodes into a cluster through NATS with JetStream, instead of Redis"`

	// Cluster holds what the nodes of a cluster say of themselves to each
	// other, whichever store joins them.
	Cluster Cluster `yaml:"cluster" help:"how the nodes of a cluster (redis or nats set) reach each other"`

	// AppStore serves apps from a database table besides Apps. Zero value
	// means apps come only from Apps (the file and ROOST_APP_*).
	AppStore AppStore `yaml:"app_store" help:"serve apps from a PostgreSQL or MySQL table with soketi's columns, besides apps (which win on a clash)"`

	// Admin protects the admin API (/admin/apps). Zero value means the
	// admin API is off.
	Admin Admin `yaml:"admin" help:"the admin API (/admin/apps) that lists and changes apps"`

	// Dashboard is the web dashboard at /dashboard (docs/dashboard.md).
	Dashboard Dashboard `yaml:"dashboard" help:"the web dashboard at /dashboard: live figures, apps and channels, a debug console and an event creator"`

	// Metrics says where /metrics and the debug endpoints are served and
	// who may read them.
	Metrics Metrics `yaml:"metrics" help:"where /metrics and the debug endpoints are served, and who may read them"`

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
	CertFile string `yaml:"cert_file" env:"ROOST_TLS_CERT" flag:"tls-cert" default:"" help:"PEM certificate chain file"`
	// KeyFile is the path of the PEM private key for CertFile. Zero value
	// means no TLS.
	KeyFile string `yaml:"key_file" env:"ROOST_TLS_KEY" flag:"tls-key" default:"" help:"PEM private key file of cert_file"`
	// WatchInterval is how often CertFile and KeyFile are read to see
	// whether a new pair was written; SIGHUP reads them at once.
	WatchInterval time.Duration `yaml:"watch_interval" env:"ROOST_TLS_WATCH_INTERVAL" default:"10s" check:"positive" help:"how often cert_file and key_file are read for a new pair, served to new handshakes (SIGHUP reads them at once)"`
	// ACME gets certificates from an ACME server instead of files. Zero
	// value means no ACME.
	ACME ACME `yaml:"acme" help:"get certificates from an ACME server (Let's Encrypt by default) instead of cert_file and key_file"`
}

// Enabled reports whether TLS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" || t.ACME.Enabled() }

// ACME says which certificates to get from an ACME server (RFC 8555) and
// where to keep them. It answers the TLS-ALPN-01 challenge on addr and the
// HTTP-01 challenge on HTTPAddr.
type ACME struct {
	// Domains are the host names to get certificates for. Zero value
	// means no ACME.
	Domains []string `yaml:"domains" env:"ROOST_TLS_ACME_DOMAINS" default:"" help:"host names to get certificates for; set instead of cert_file and key_file"`
	// Email is the account's contact address, for expiry notices.
	Email string `yaml:"email" env:"ROOST_TLS_ACME_EMAIL" default:"" help:"contact address of the ACME account (expiry notices); empty means none"`
	// CacheDir keeps the account key and the certificates across restarts.
	CacheDir string `yaml:"cache_dir" env:"ROOST_TLS_ACME_CACHE_DIR" default:"" help:"directory keeping the ACME account key and certificates across restarts; required with domains"`
	// DirectoryURL is the ACME server's directory.
	DirectoryURL string `yaml:"directory_url" env:"ROOST_TLS_ACME_DIRECTORY_URL" default:"https://acme-v02.api.letsencrypt.org/directory" check:"http_url" help:"the ACME server's directory URL (Let's Encrypt's staging one while testing)"`
	// CAFile names PEM certificates trusted for DirectoryURL's HTTPS
	// besides the system's, for a private ACME server.
	CAFile string `yaml:"ca_file" env:"ROOST_TLS_ACME_CA_FILE" default:"" help:"PEM file of CA certificates trusted for directory_url besides the system's (a private ACME server); empty means the system's only"`
	// HTTPAddr is where the HTTP-01 challenge is answered; other requests
	// there are redirected to https://.
	HTTPAddr string `yaml:"http_addr" env:"ROOST_TLS_ACME_HTTP_ADDR" default:":80" check:"hostport" help:"listen address answering the HTTP-01 challenge (the ACME server calls port 80) and redirecting other http:// requests to https://"`
}

// Enabled reports whether certificates come from ACME.
func (a ACME) Enabled() bool { return len(a.Domains) > 0 }

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
	MaxBodySize int `yaml:"max_body_size" env:"ROOST_MAX_BODY_SIZE" reload:"live" default:"1MiB" unit:"bytes" check:"positive" help:"largest HTTP API request body; larger ones get 413"`

	// MaxEventData is the largest data of one event, in bytes, from the
	// HTTP API or a client event. The default is Pusher's limit (Pusher
	// docs, "HTTP API reference": data up to 10 KB).
	MaxEventData int `yaml:"max_event_data" env:"ROOST_MAX_EVENT_DATA" reload:"live" default:"10KiB" unit:"bytes" check:"positive" help:"largest data of one event, from the API or a client (Pusher's limit)"`

	// WriteBacklog is how many bytes may wait to be written to one slow
	// connection before it is closed.
	WriteBacklog int `yaml:"write_backlog" env:"ROOST_WRITE_BACKLOG" default:"1MiB" unit:"bytes" check:"positive" help:"bytes queued for a slow client before it is closed"`

	// WriteBacklogTotal bounds the bytes queued for slow clients over all
	// connections together; past it the largest backlogs are closed with
	// 4100. Zero value means a quarter of the memory ceiling (max_memory,
	// or its cgroup-derived value), or 64 MiB when there is none.
	WriteBacklogTotal int `yaml:"write_backlog_total" env:"ROOST_WRITE_BACKLOG_TOTAL" default:"0" unit:"bytes" check:"min=0" help:"bytes queued for slow clients over all connections, the largest closed with 4100 past it; 0 means a quarter of the memory ceiling, or 64MiB without one"`

	// SendBuffer caps each WebSocket socket's kernel send buffer
	// (SO_SNDBUF; Linux doubles it for its bookkeeping), so that a client
	// that does not read parks no more than that in the kernel. Zero value
	// leaves the kernel's default and its autotuning.
	SendBuffer int `yaml:"send_buffer" env:"ROOST_SEND_BUFFER" default:"128KiB" unit:"bytes" check:"min=0" help:"kernel send buffer of each WebSocket socket (SO_SNDBUF); 0 leaves the kernel's autotuning"`

	// WriteTimeout closes a connection whose writes stay blocked this long.
	WriteTimeout time.Duration `yaml:"write_timeout" env:"ROOST_WRITE_TIMEOUT" default:"10s" check:"positive" help:"a connection whose writes stay blocked this long is closed"`

	// HandshakeTimeout is the HTTP server's ReadHeaderTimeout and how long
	// to wait for the peer's close frame in the WebSocket closing handshake
	// (RFC 6455 section 7.1.1).
	HandshakeTimeout time.Duration `yaml:"handshake_timeout" env:"ROOST_HANDSHAKE_TIMEOUT" default:"5s" check:"positive" help:"time to read HTTP request headers, and to wait for a client's close frame"`

	// MaxHeaderBytes is the HTTP server's MaxHeaderBytes, in bytes, for the
	// upgrade request and API requests.
	MaxHeaderBytes int `yaml:"max_header_bytes" env:"ROOST_MAX_HEADER_BYTES" default:"16KiB" unit:"bytes" check:"positive" help:"largest HTTP request headers"`

	// APIBodyTimeout bounds reading one HTTP API request body, counted
	// from when the request has passed its signature check; a body still
	// incomplete then is answered 408 and its connection closed.
	APIBodyTimeout time.Duration `yaml:"api_body_timeout" env:"ROOST_API_BODY_TIMEOUT" default:"10s" check:"positive" help:"time to receive one HTTP API request body; slower ones get 408 and are disconnected"`

	// APIRequestsPerIP caps the HTTP API requests one client address may
	// have in progress at once; more get 429. Behind a proxy every client
	// shares the proxy's address.
	APIRequestsPerIP int `yaml:"api_requests_per_ip" env:"ROOST_API_REQUESTS_PER_IP" reload:"live" default:"32" check:"positive" help:"HTTP API requests one client address may have in progress at once; more get 429"`

	// APIBodyMemory caps the bytes of HTTP API request bodies being
	// received at once, across all clients, counting each body at its
	// Content-Length (max_body_size when unknown); requests past it get
	// 503. One request is always admitted when none is in progress.
	APIBodyMemory int `yaml:"api_body_memory" env:"ROOST_API_BODY_MEMORY" reload:"live" default:"64MiB" unit:"bytes" check:"positive" help:"HTTP API request bodies being received at once, all clients together; more get 503"`

	// ClientEventsPerSecond is how many client events one connection may
	// send per second before it gets pusher:error 4301 (Pusher docs,
	// "Client events").
	ClientEventsPerSecond int `yaml:"client_events_per_second" env:"ROOST_CLIENT_EVENTS_PER_SECOND" reload:"live" default:"10" check:"positive" help:"client events one connection may send per second; more get error 4301"`

	// MaxSubscriptionsPerConnection caps the channels one connection may
	// subscribe to (pending subscriptions included; the channels a sign-in
	// joins are not counted); a subscription over it gets
	// pusher:subscription_error LimitReached. At most 10,000: the session
	// counts a connection's subscriptions in 16 bits.
	MaxSubscriptionsPerConnection int `yaml:"max_subscriptions_per_connection" env:"ROOST_MAX_SUBSCRIPTIONS_PER_CONNECTION" reload:"live" default:"100" check:"positive,max=10000" help:"channels one connection may subscribe to; more get subscription_error LimitReached"`

	// MaxConnections caps the node's WebSocket connections; a handshake
	// over it is answered HTTP 503 with Retry-After, before the upgrade.
	// Zero value means the file limit less max(64, 5%), so that the
	// descriptors left serve the HTTP API, /metrics, health checks and the
	// refusals themselves.
	MaxConnections int `yaml:"max_connections" env:"ROOST_MAX_CONNECTIONS" reload:"live" default:"0" check:"min=0" help:"WebSocket connections on this node, more get HTTP 503; 0 means the file limit less max(64, 5%)"`

	// MaxConnectionsPerIP caps the WebSocket connections from one client
	// address. Zero value means unlimited: behind a proxy or load balancer
	// every client has the proxy's address.
	MaxConnectionsPerIP int `yaml:"max_connections_per_ip" env:"ROOST_MAX_CONNECTIONS_PER_IP" reload:"live" default:"0" check:"min=0" help:"WebSocket connections from one client address, more get HTTP 503; 0 means unlimited (behind a proxy all clients share its address)"`

	// HandshakesPerSecond caps new WebSocket connections per second on the
	// node, with a burst of one second's worth. Zero value means unlimited.
	HandshakesPerSecond int `yaml:"handshakes_per_second" env:"ROOST_HANDSHAKES_PER_SECOND" reload:"live" default:"0" check:"min=0" help:"new WebSocket connections per second on this node (bursts of one second's worth), more get HTTP 503; 0 means unlimited"`

	// HandshakesPerSecondPerIP caps new WebSocket connections per second
	// from one client address, with a burst of one second's worth. Zero
	// value means unlimited.
	HandshakesPerSecondPerIP int `yaml:"handshakes_per_second_per_ip" env:"ROOST_HANDSHAKES_PER_SECOND_PER_IP" reload:"live" default:"0" check:"min=0" help:"new WebSocket connections per second from one client address, more get HTTP 503; 0 means unlimited"`

	// MaxMemory is the memory ceiling, in bytes of memory the Go runtime
	// holds, above which new WebSocket connections get HTTP 503 rather than
	// the OOM killer taking every open one. Zero value means 80% of the
	// cgroup's memory.max, or no ceiling outside a limited cgroup.
	MaxMemory int `yaml:"max_memory" env:"ROOST_MAX_MEMORY" reload:"live" default:"0" unit:"bytes" check:"min=0" help:"Go memory above which new WebSocket connections get HTTP 503; 0 means 80% of the cgroup's memory.max, or none"`

	// IPv6Prefix is how many leading bits of an IPv6 client address the
	// per-address limits count it by: one host rotates freely through its
	// /64. 128 counts every address on its own.
	IPv6Prefix int `yaml:"ipv6_prefix" env:"ROOST_IPV6_PREFIX" default:"64" check:"min=1,max=128" help:"per-address limits count an IPv6 client by this many leading bits (one host has a whole /64); 128 counts each address"`
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
	// URL names one Redis ("redis://[user:password@]host:port[/db]"), a
	// Redis Cluster ("redis+cluster://host:port,host:port") or a primary
	// found through Sentinel ("redis+sentinel://host:port/mastername");
	// "rediss" instead of "redis" means TLS. Zero value means no Redis: one
	// node, in-process broker.
	URL string `yaml:"url" env:"ROOST_REDIS_URL" flag:"redis-url" default:"" check:"redis_url" help:"redis://[user:password@]host:port[/db], redis+cluster://host:port,host:port,... (Redis Cluster), redis+sentinel://host:port,.../mastername[/db] (Sentinel); rediss... for TLS; empty means one node with an in-process broker"`
	// Prefix starts every Redis key and channel name roost uses, so several
	// clusters can share one Redis. It holds no '{' or '}': roost places
	// keys on Redis Cluster slots with hash tags of its own.
	Prefix string `yaml:"prefix" env:"ROOST_REDIS_PREFIX" flag:"redis-prefix" default:"roost" check:"redis_prefix" help:"starts every Redis key and topic, so clusters can share one Redis"`
}

// NATS configures the NATS broker that joins several nodes into one
// cluster: messages on core NATS subjects, shared state in JetStream
// key-value buckets (docs/cluster.md, "NATS").
type NATS struct {
	// URL is "nats://[user:password@]host:port" (several, comma-separated,
	// for a NATS cluster) or "tls://..." for TLS. Zero value means no NATS.
	URL string `yaml:"url" env:"ROOST_NATS_URL" flag:"nats-url" default:"" check:"nats_url" help:"nats://[user:password@]host:port[,nats://...], or tls:// for TLS, with JetStream enabled; empty means no NATS"`
	// Prefix starts every subject and bucket name roost uses, so several
	// clusters can share one NATS.
	Prefix string `yaml:"prefix" env:"ROOST_NATS_PREFIX" flag:"nats-prefix" default:"roost" check:"nats_prefix" help:"starts every NATS subject and key-value bucket name, so clusters can share one NATS; letters, digits, '_' and '-'"`
}

// Cluster configures how a node of a cluster is reached by the others.
type Cluster struct {
	// AdvertiseURL is the http:// or https:// address at which the other
	// nodes reach this node's listen address: they forward an HTTP
	// fallback session's requests to the node that holds it. Zero value
	// means derived from Addr ("http://" + Addr) when Addr names a host;
	// with a wildcard Addr (":6001", "0.0.0.0:6001") nothing is derived and
	// fallback sessions are not forwarded.
	AdvertiseURL string `yaml:"advertise_url" env:"ROOST_CLUSTER_ADVERTISE_URL" flag:"cluster-advertise-url" default:"" check:"optional_http_url" help:"http(s)://host:port at which the other nodes reach this one, to forward HTTP fallback sessions to it; empty means http://addr when addr names a host"`
}

// AppStore configures the database apps are read from: a table with
// soketi's columns, read lazily and cached (docs/apps.md).
type AppStore struct {
	// URL is "postgres://user:pass@host:5432/db" or
	// "mysql://user:pass@host:3306/db". Zero value means no database.
	URL string `yaml:"url" env:"ROOST_APPS_URL" flag:"apps-url" default:"" check:"apps_url" help:"postgres://user:pass@host/db or mysql://user:pass@host:3306/db; empty means apps come only from apps and ROOST_APP_*"`
	// Table is the table holding the apps, optionally schema-qualified.
	Table string `yaml:"table" env:"ROOST_APPS_TABLE" default:"apps" check:"sql_name" help:"the table of apps (soketi's columns), optionally schema.table"`
	// Refresh is how often cached apps are read again, so a change in the
	// table (a disabled app, a new secret) takes effect within it.
	Refresh time.Duration `yaml:"refresh" env:"ROOST_APPS_REFRESH" default:"10s" check:"positive" help:"cached apps are read again this often; a change in the table takes effect within it"`
	// UnknownTTL is how long a key or id the table does not hold is
	// remembered as unknown, so a flood of bad keys cannot hammer the
	// database.
	UnknownTTL time.Duration `yaml:"unknown_ttl" env:"ROOST_APPS_UNKNOWN_TTL" default:"5s" check:"positive" help:"a key or id the table lacks is answered unknown from memory this long"`
	// Wait bounds how long a handshake or API request waits for an app
	// that is not cached yet.
	Wait time.Duration `yaml:"wait" env:"ROOST_APPS_WAIT" default:"2s" check:"positive" help:"a handshake or API request waits this long for an app that is not cached"`
}

// Admin configures the admin API.
type Admin struct {
	// Token is the bearer token the admin API requires. Zero value means
	// the admin API answers 404.
	Token string `yaml:"token" env:"ROOST_ADMIN_TOKEN" default:"" check:"token" help:"bearer token for /admin/apps, at least 16 characters; empty turns the admin API off"`
}

// Dashboard configures the web dashboard. Its password is admin.token;
// without one it is served only for the development app on a loopback
// address (docs/dashboard.md).
type Dashboard struct {
	// Enabled serves /dashboard where it may be served (see On). Nil
	// means true.
	Enabled *bool `yaml:"enabled" env:"ROOST_DASHBOARD" default:"true" help:"serve the dashboard at /dashboard: behind admin.token when it is set, else only for the development app on a loopback address"`
	// Console offers the debug console and the event creator; false leaves
	// figures, apps and channels. Nil means true.
	Console *bool `yaml:"console" env:"ROOST_DASHBOARD_CONSOLE" default:"true" help:"offer the debug console (a live stream of connections, subscriptions and events) and the event creator in the dashboard"`
	// RequestsPerSecond caps the dashboard's requests per client address,
	// with bursts of twice as many; more get 429.
	RequestsPerSecond int `yaml:"requests_per_second" env:"ROOST_DASHBOARD_REQUESTS_PER_SECOND" default:"20" check:"positive" help:"dashboard requests a second one client address may send (bursts of twice as many); more get 429"`
	// ConsoleEventsPerSecond caps the events one open console is sent; the
	// rest are counted as skipped.
	ConsoleEventsPerSecond int `yaml:"console_events_per_second" env:"ROOST_DASHBOARD_CONSOLE_EVENTS_PER_SECOND" default:"50" check:"positive" help:"events a second one open debug console is shown; more are counted as skipped"`
}

// On reports whether the dashboard is switched on.
func (d Dashboard) On() bool { return d.Enabled == nil || *d.Enabled }

// ConsoleOn reports whether the debug console and event creator are offered.
func (d Dashboard) ConsoleOn() bool { return d.Console == nil || *d.Console }

// Metrics configures the Prometheus endpoint and the debug endpoints.
type Metrics struct {
	// Addr is a separate "host:port" for /metrics and the debug endpoints,
	// which then leave the main address. Zero value means the main address.
	Addr string `yaml:"addr" env:"ROOST_METRICS_ADDR" default:"" check:"optional_hostport" help:"serve /metrics and the debug endpoints on this host:port only, not on addr; empty means on addr"`
	// Token, when set, is the bearer token /metrics and the debug endpoints
	// require (Authorization: Bearer <token>); others get 401. Zero value
	// means no token.
	Token string `yaml:"token" env:"ROOST_METRICS_TOKEN" default:"" help:"when set, /metrics and the debug endpoints need the header Authorization: Bearer <token>"`
}

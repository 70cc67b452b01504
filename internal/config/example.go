package config

// Example is a complete, commented roost configuration file that Load
// accepts. Every setting shows its default except apps; `roost serve
// --print-config` prints it and the README points at it, so a test loads it
// to keep it true.
const Example = `# roost configuration. Every setting is optional: leave one out (or empty)
# to get the default shown here. ROOST_* environment variables override this
# file (e.g. ROOST_ADDR, ROOST_LOG_LEVEL, ROOST_APP_ID/_KEY/_SECRET).
# Durations are Go durations ("120s", "2m"); sizes are bytes, or strings with
# a unit: "64KB" (x1000), "64KiB" (x1024), "1MB", "1MiB", "1GB", "1GiB".

# Listen address for WebSocket clients and the HTTP API. The default is
# loopback only; use ":6001" or "0.0.0.0:6001" to accept other hosts.
addr: "127.0.0.1:6001"

# Serve wss:// and https:// directly: set both files, or neither (and put a
# TLS-terminating proxy in front). TLS needs transport "auto" or "portable".
tls:
  cert_file: ""
  key_file: ""

# "auto" (epoll on Linux without TLS, else portable), "epoll" or "portable".
transport: auto

# Event loops for the epoll transport; 0 means one per CPU (GOMAXPROCS).
loops: 0

# Clients ping after this much silence (sent to them in whole seconds).
activity_timeout: 120s
# A client silent for activity_timeout + pong_wait is disconnected (4201).
pong_wait: 30s
# Graceful shutdown waits this long for connections to drain.
shutdown_timeout: 10s

# Go GC target (like GOGC, which wins when set): lower keeps idle RSS closer
# to the live heap at a small CPU cost while connections churn.
gc_percent: 50

limits:
  max_message_size: 64KiB       # one WebSocket message from a client
  max_body_size: 1MiB           # one HTTP API request body
  max_event_data: 10KiB         # one event's data (Pusher's limit)
  write_backlog: 1MiB           # queued for a slow client before it is closed
  write_timeout: 10s            # blocked this long, a connection is closed
  handshake_timeout: 5s         # HTTP header read and WebSocket close wait
  max_header_bytes: 16KiB       # HTTP request headers
  client_events_per_second: 10  # per connection; more get error 4301

# Pusher apps. Without any, roost serves one development app whose secret
# is public (id "app-id", key "app-key", secret "app-secret").
apps:
  - id: "my-app"                # /apps/{id}/... in the HTTP API
    key: "my-app-key"           # /app/{key} for clients
    secret: "change-me"         # signs auth and API requests; keep it secret
    enabled: true               # false: connections get 4003, the API 403
    client_events: false        # allow client- events on private/presence channels
    subscription_count: false   # send pusher_internal:subscription_count
    max_connections: 0          # on this node; 0 means unlimited, over it 4004
    max_presence_members: 100   # distinct users per presence channel
    max_presence_user_info: 1KiB # user_info of one presence member

log:
  level: info                   # debug, info, warn or error
  format: text                  # text or json

# Join nodes into a cluster through Redis; empty url means one node with an
# in-process broker. Use rediss:// for TLS. prefix starts every Redis key.
redis:
  url: ""                       # e.g. "redis://:password@redis:6379/0"
  prefix: roost
`

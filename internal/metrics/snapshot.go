package metrics

import (
	"time"

	"github.com/roostproject/roost/internal/connstats"
)

// Transport is one transport's counters at the moment of a scrape.
type Transport struct {
	// Name is the transport label value (admission.Transport): "epoll",
	// "portable", "xhr_streaming" or "xhr_polling".
	Name string
	connstats.Counts
}

// Snapshot is everything roost's own collector reports. A Source fills one
// on every scrape.
type Snapshot struct {
	// Transports holds one entry per transport the node runs.
	Transports []Transport
	// Channels is the number of channels with at least one local subscriber.
	Channels int
	// Subscriptions is the number of (connection, channel) pairs.
	Subscriptions int
	// HandshakesRefused counts sessions refused with an HTTP error or in
	// Pusher's terms (unknown app, bad protocol version), on every transport.
	HandshakesRefused int64
	// Refused breaks HandshakesRefused down by transport and reason, every
	// reason of every transport listed even at 0, in a fixed order.
	Refused []Refusal
	// MaxConnections is the node's cap on WebSocket connections; 0 is none.
	MaxConnections int
	// HandshakeTimeouts counts connections closed because their first
	// request did not arrive within the handshake timeout.
	HandshakeTimeouts int64
	// WriteBacklog is the bytes queued for slow clients over every
	// connection now; WriteBacklogLimit the node's budget for them
	// (limits.write_backlog_total), 0 when unbounded.
	WriteBacklog      int64
	WriteBacklogLimit int64
	// Cluster is the node's link to the other nodes; nil on a single node.
	Cluster *Cluster
	// Webhooks holds one entry per app with webhooks.
	Webhooks []Webhook
	// Config is when the configuration was last loaded. Zero value means
	// unknown, and no series is exported.
	Config ConfigLoad
}

// ConfigLoad says when the node's configuration was last loaded and
// whether the last attempt to load it again (SIGHUP) was refused.
type ConfigLoad struct {
	// LastSuccess is the start, or the last reload that was applied.
	LastSuccess time.Time
	// Failed reports that the last reload was refused (the running
	// configuration was kept).
	Failed bool
}

// Refusal is the count of refused handshakes for one transport and reason.
type Refusal struct {
	Transport string
	Reason    string
	Count     int64
}

// Cluster describes a cluster node's link to Redis.
type Cluster struct {
	// Up reports whether Redis is reachable.
	Up bool
	// Dropped counts messages not sent to the other nodes because the
	// outbox was full while Redis was slow or away.
	Dropped int64
	// Duplicates counts messages from other nodes received again (a
	// publish retried after a timeout) and dropped, not delivered twice.
	Duplicates int64
}

// Source fills a Snapshot. It is called once per scrape, possibly from
// several goroutines at once, so it must be safe for concurrent use; it
// should only read counters.
type Source interface {
	Snapshot(s *Snapshot)
}

// SourceFunc adapts a function to the Source interface.
type SourceFunc func(s *Snapshot)

// Snapshot calls f(s).
func (f SourceFunc) Snapshot(s *Snapshot) { f(s) }

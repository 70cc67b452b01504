package metrics

// Reason is why a connection was closed, one label value of
// roost_connections_closed_total.
type Reason int

// The close reasons every transport counts.
const (
	ReasonClient  Reason = iota // the client closed (close frame or EOF)
	ReasonTimeout               // silence past the activity timeout (4201) or a stuck close handshake
	ReasonSlow                  // a slow consumer: write backlog over its cap, or writes blocked too long
	ReasonError                 // a protocol or socket error
	ReasonServer                // the server closed it (shutdown, terminate_connections)
	NumReasons                  // the number of reasons, for arrays indexed by Reason
)

// reasonNames are the label values, indexed by Reason.
var reasonNames = [NumReasons]string{"client", "timeout", "slow_consumer", "error", "server"}

// String returns the label value of r.
func (r Reason) String() string {
	if r < 0 || r >= NumReasons {
		return "unknown"
	}
	return reasonNames[r]
}

// Transport is one transport's counters at the moment of a scrape.
type Transport struct {
	// Name is the transport label value: "epoll" or "portable".
	Name string
	// Open is the number of connections the transport serves now.
	Open int64
	// Accepted counts connections handed to the transport since start.
	Accepted int64
	// Closed counts ended connections by reason.
	Closed [NumReasons]int64
	// MessagesIn counts complete client messages.
	MessagesIn int64
	// BytesIn counts bytes read from client sockets.
	BytesIn int64
	// FramesOut counts frames written or queued to client sockets.
	FramesOut int64
	// BytesOut counts bytes written or queued to client sockets.
	BytesOut int64
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
	// HandshakesRefused counts WebSocket handshakes answered with an HTTP
	// error or a Pusher refusal (unknown app, bad protocol version).
	HandshakesRefused int64
	// Cluster is the node's link to the other nodes; nil on a single node.
	Cluster *Cluster
	// Webhooks holds one entry per app with webhooks.
	Webhooks []Webhook
}

// Cluster describes a cluster node's link to Redis.
type Cluster struct {
	// Up reports whether Redis is reachable.
	Up bool
	// Dropped counts messages not sent to the other nodes because the
	// outbox was full while Redis was slow or away.
	Dropped int64
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

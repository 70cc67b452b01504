package natsstore

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// Config holds what a cluster node needs.
type Config struct {
	// URL is "nats://[user:password@]host:port", several comma-separated
	// for a NATS cluster, or "tls://..." (TLS). JetStream must be enabled.
	URL string
	cluster.Settings
}

// Node is one roost node's link to a cluster over NATS. It is a hub.Broker,
// and State returns the cluster's versions of the hub's shared state.
type Node struct {
	cfg  Config
	node string
	nc   *nats.Conn
	js   jetstream.JetStream
	log  *slog.Logger
	kv   atomic.Pointer[buckets] // nil until JetStream has answered

	outbox  chan outbound
	acks    acks
	dropped atomic.Int64
	subs    cluster.SubQueue
	in      chan *nats.Msg // every channel subject's messages, for receiveLoop

	link     cluster.Link
	epoch    atomic.Uint64
	until    atomic.Int64 // Unix ns: reconciliation rounds run until then
	deferred cluster.Departures

	// This node's own share of the shared state, to answer from while NATS
	// is away and to write again when it comes back. A change takes
	// changes.RLock and the stripe of its key; a resync takes changes.Lock,
	// so that what it writes is the share after every change before it.
	presence presence
	users    users
	counts   counts
	changes  sync.RWMutex
	stripes  [64]sync.Mutex
	guesses  guesses // the values this node last wrote, to change them in one round trip

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ hub.Broker = (*Node)(nil)

// New connects to NATS and starts the node's goroutines. A bad URL is an
// error; an unreachable NATS is not: the node starts degraded and keeps
// trying.
func New(cfg Config) (*Node, error) {
	cfg.ApplyDefaults()
	n := &Node{
		cfg: cfg, node: strconv.FormatUint(cfg.Node, 10), log: cfg.Logger,
		outbox: make(chan outbound, cfg.Outbox), subs: cluster.NewSubQueue(),
		in: make(chan *nats.Msg, cfg.Outbox), link: cluster.NewLink(),
	}
	n.link.Dirty.Store(true) // the first beat writes the (empty) shares, clearing a former node's with this id
	n.presence = presence{n: n, local: hub.NewMemoryPresence()}
	n.users = users{n: n, local: hub.NewMemoryUsers()}
	n.counts = newCounts(n)
	n.ctx, n.cancel = context.WithCancel(context.Background())
	nc, err := nats.Connect(cfg.URL, n.options()...)
	if err != nil {
		n.cancel()
		return nil, fmt.Errorf("natscluster: nats url: %w", err)
	}
	n.nc = nc
	if err = n.acks.listen(nc); err == nil {
		n.js, err = jetstream.New(nc)
	}
	if err != nil {
		nc.Close()
		n.cancel()
		return nil, fmt.Errorf("natscluster: jetstream: %w", err)
	}
	n.start(n.publishLoop, n.receiveLoop, n.subscribeLoop, n.tickLoop)
	n.heartbeat()
	n.start(n.healthLoop)
	return n, nil
}

// options are the connection's: it retries for ever, a failed first
// connection included, and tells the node when it drops and comes back.
func (n *Node) options() []nats.Option {
	return []nats.Option{
		nats.Name("roost node " + n.node),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(probeEvery),
		nats.Timeout(time.Second),
		nats.PingInterval(n.cfg.SlowReply),
		nats.MaxPingsOutstanding(1),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if !nc.IsClosed() {
				n.down(err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { n.link.Suspect() }),
		nats.ConnectHandler(func(*nats.Conn) { n.link.Suspect() }),
	}
}

func (n *Node) start(loops ...func()) {
	for _, f := range loops {
		n.wg.Go(f)
	}
}

// Close stops the node's goroutines and removes its heartbeat, so the others
// clean up after it at once.
func (n *Node) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n.link.Drain(ctx, func() int { return len(n.outbox) })
	n.counts.flush()
	if b := n.kv.Load(); b != nil && n.link.Healthy.Load() {
		n.nc.FlushTimeout(time.Second)
		b.alive.Delete(ctx, n.node)
	}
	n.cancel()
	n.wg.Wait()
	n.nc.Close()
	return nil
}

// State returns the cluster-wide presence, users, counts and cache, for
// hub.SetState.
func (n *Node) State() hub.State {
	return hub.State{Presence: &n.presence, Users: &n.users, Counts: &n.counts, Cache: cache{n}}
}

// Ready reports nil when NATS and its JetStream answer, else why the node
// is degraded.
func (n *Node) Ready() error { return n.link.Ready("nats") }

// Dropped returns how many outbound messages were dropped because the
// outbox was full or NATS refused them.
func (n *Node) Dropped() int64 { return n.dropped.Load() }

// Duplicates returns how many messages from other nodes arrived twice and
// were dropped: none on NATS, which delivers a publish at most once, and
// the node never publishes a message again (the Redis backend retries a
// publish whose reply timed out, and counts the copies it drops).
func (n *Node) Duplicates() int64 { return 0 }

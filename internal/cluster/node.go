package cluster

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// Node is one roost node's link to the cluster through a Store. It is a
// hub.Broker, and State returns the cluster's versions of the hub's shared
// state.
type Node struct {
	cfg   Settings
	id    string
	store Store
	log   *slog.Logger

	outbox  chan Outbound
	subs    SubQueue
	dropped atomic.Int64
	dupes   atomic.Int64

	link     Link // is the store reachable, since when, what to do about it
	epoch    atomic.Uint64
	until    atomic.Int64 // Unix ns: reconciliation rounds run until then
	deferred Departures

	// This node's own share of the shared state, to answer from while the
	// store is away and to write again when it comes back. A change takes
	// changes.RLock and the stripe of its key; a resync takes changes.Lock,
	// so that what it writes is the share after every change before it.
	presence presence
	users    users
	counts   counts
	tally    tally
	changes  sync.RWMutex
	stripes  [64]sync.Mutex

	refreshed  atomic.Int64 // Unix ns of the last refresh of the shares' expiry (expiry.go)
	refreshing atomic.Bool  // one is under way
	stale      atomic.Bool  // the shares were written again since it started

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ hub.Broker = (*Node)(nil)

// Open starts a node on b's store with settings s (and their defaults;
// s.Prefix is required). An unreachable store is no error: the node
// starts degraded and keeps trying.
func Open(s Settings, b Backend) (*Node, error) {
	s.ApplyDefaults()
	if s.Prefix == "" {
		return nil, errors.New("cluster: no prefix")
	}
	store, err := b.Open(b.URL, s)
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg: s, id: strconv.FormatUint(s.Node, 10), store: store, log: s.Logger,
		outbox: make(chan Outbound, s.Outbox), subs: NewSubQueue(), link: NewLink(),
	}
	n.link.Dirty.Store(true) // the first beat writes the (empty) shares, clearing a former node's with this id
	n.presence = presence{n: n, local: hub.NewMemoryPresence()}
	n.users = users{n: n, local: hub.NewMemoryUsers()}
	n.counts = counts{n: n, id: uint64(time.Now().UnixNano())} // above any id a former process with this node id sent
	n.tally = tally{n: n, here: make(map[string]int)}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	store.Start(n)
	n.Go(n.publishLoop)
	n.Go(n.subscribeLoop)
	n.Go(n.tickLoop)
	n.Every(connsEvery, n.tally.tick)
	n.heartbeat()
	n.Go(n.healthLoop)
	return n, nil
}

// Go runs f on a goroutine of the node's, which Close waits for.
func (n *Node) Go(f func()) { n.wg.Go(f) }

// Close stops the node's goroutines and removes its heartbeat, so the others
// clean up after it at once.
func (n *Node) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n.link.Drain(ctx, func() int { return len(n.outbox) })
	n.counts.flush()
	if n.link.Healthy.Load() {
		n.store.Leave(ctx)
	}
	n.cancel()
	return n.store.Close(n.wg.Wait)
}

// State returns the cluster-wide presence, users, counts and cache, for
// hub.SetState.
func (n *Node) State() hub.State {
	return hub.State{Presence: &n.presence, Users: &n.users, Counts: &n.counts, Cache: cache{n}, Tally: &n.tally}
}

// Ready reports nil when the store is reachable, else why the node is
// degraded.
func (n *Node) Ready() error { return n.link.Ready(n.store.Name()) }

// Dropped returns how many outbound messages were dropped because the
// outbox was full or the store refused them.
func (n *Node) Dropped() int64 { return n.dropped.Load() }

// Duplicates returns how many messages from other nodes arrived twice and
// were delivered once.
func (n *Node) Duplicates() int64 { return n.dupes.Load() }

// ID is the node's id, as the store records it.
func (n *Node) ID() string { return n.id }

// Settings are the node's, with their defaults.
func (n *Node) Settings() *Settings { return &n.cfg }

// Link is the node's view of its link to the store.
func (n *Node) Link() *Link { return &n.link }

// Context ends when the node closes.
func (n *Node) Context() context.Context { return n.ctx }

// Period is the heartbeat period.
func (n *Node) Period() time.Duration { return n.cfg.NodeTTL / 3 }

// Lost counts an outbound message the store refused.
func (n *Node) Lost() { n.dropped.Add(1) }

// Repeated counts a message from another node that arrived twice.
func (n *Node) Repeated() { n.dupes.Add(1) }

// Down records that the store is unreachable.
func (n *Node) Down(err error) {
	n.counts.Dirty.Store(true)
	if n.link.Down() {
		n.log.Warn(n.store.Name()+" unreachable: serving local connections only", "err", err)
	}
}

// up records that the store answers again.
func (n *Node) up() {
	if n.link.Up() {
		n.log.Info(n.store.Name()+" reachable: serving as a cluster node", "node", n.id, "prefix", n.cfg.Prefix)
	}
}

// settled reports whether the store has been reachable for d since the
// last outage this node saw (or since it started, if it saw none).
func (n *Node) settled(d time.Duration) bool { return n.link.Settled(d) }

// Unreachable reports whether err says the store could not be reached.
func Unreachable(err error) bool { return errors.Is(err, ErrDown) }

// Rewrite has the node write all its shares again soon: the store may
// have lost some of them (a failover), or applied a call given up on.
func (n *Node) Rewrite() {
	n.link.Dirty.Store(true)
	n.counts.Dirty.Store(true)
	n.link.Suspect()
}

// Halt stops the node as kill -9 would, without its goodbye: its heartbeat
// lapses and another node reaps it. Fault tests use it.
func (n *Node) Halt() {
	n.cancel()
	n.store.Close(n.wg.Wait)
}

// SyncCounts writes this node's every count outright now, as it does
// after an outage, and reports the transitions.
func (n *Node) SyncCounts() { n.counts.resync() }

// Every calls f every d on a goroutine of the node's, until it closes.
func (n *Node) Every(d time.Duration, f func()) {
	n.Go(func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-n.ctx.Done():
				return
			case <-t.C:
				f()
			}
		}
	})
}

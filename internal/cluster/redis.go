package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// Config holds what a cluster node needs.
type Config struct {
	// URL is "redis://[user:password@]host:port[/db]" or "rediss://..." (TLS).
	URL string
	// Prefix starts every key and topic, so clusters can share one Redis.
	// Zero value means "roost".
	Prefix string
	// Node is this node's id: the first part of its socket_ids.
	Node uint64
	// Apps are the ids of every app (to clean up after a dead node).
	Apps []string
	// Deliver hands a message to this node's subscribers (hub.Deliver).
	Deliver func(*hub.Message)
	// NodeTTL is how long a node's heartbeat lives: a node silent this long
	// is taken for dead. Zero value means 15s.
	NodeTTL time.Duration
	// Outbox is how many outbound messages may wait while Redis is slow or
	// away; more are dropped and counted. Zero value means 65536.
	Outbox int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Observer is told of the cluster-wide transitions only the cluster
	// sees: channels occupied and vacated, and the members of a dead node
	// removed. Zero value (nil) means nobody.
	Observer hub.Observer
}

func (c *Config) applyDefaults() {
	if c.Prefix == "" {
		c.Prefix = "roost"
	}
	if c.NodeTTL <= 0 {
		c.NodeTTL = 15 * time.Second
	}
	if c.Outbox <= 0 {
		c.Outbox = 65536
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Observer == nil {
		c.Observer = hub.NopObserver{}
	}
}

// Redis is one node's link to the cluster. It is a hub.Broker, and State
// returns the cluster's versions of the hub's shared state.
type Redis struct {
	cfg  Config
	node string
	rdb  *redis.Client
	ps   *redis.PubSub
	log  *slog.Logger

	outbox   chan outbound
	subs     subQueue
	awaiting awaiting
	healthy  atomic.Bool
	dropped  atomic.Int64

	// This node's own share of the shared state, to answer from while
	// Redis is away and to write again when Redis comes back. shares is held
	// while any of it changes and while resync writes it all, so that
	// Redis never gets a share that misses a change made meanwhile.
	shares   sync.Mutex
	presence presence
	users    users
	counts   counts

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ hub.Broker = (*Redis)(nil)

// New connects to Redis and starts the node's goroutines. A bad URL is an
// error; an unreachable Redis is not: the node starts degraded and keeps
// trying.
func New(cfg Config) (*Redis, error) {
	cfg.applyDefaults()
	opts, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("cluster: redis url: %w", err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, time.Second, time.Second
	opts.PoolTimeout, opts.MaxRetries = time.Second, 1
	r := &Redis{
		cfg: cfg, node: strconv.FormatUint(cfg.Node, 10), rdb: redis.NewClient(opts), log: cfg.Logger,
		outbox: make(chan outbound, cfg.Outbox), subs: subQueue{wake: make(chan struct{}, 1)},
	}
	r.presence = presence{r: r, local: hub.NewMemoryPresence()}
	r.users = users{r: r, local: hub.NewMemoryUsers()}
	r.counts = newCounts(r)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.ps = r.rdb.Subscribe(r.ctx)
	r.heartbeat()
	r.start(r.publishLoop, r.receiveLoop, r.subscribeLoop, r.tickLoop)
	return r, nil
}

func (r *Redis) start(loops ...func()) {
	for _, f := range loops {
		r.wg.Add(1)
		go func() { defer r.wg.Done(); f() }()
	}
}

// Close stops the node's goroutines and removes its heartbeat, so the others
// clean up after it at once.
func (r *Redis) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for len(r.outbox) > 0 && r.healthy.Load() && sleep(ctx, 10*time.Millisecond) {
	}
	r.counts.flush()
	r.rdb.Del(ctx, r.key("node", r.node))
	r.cancel()
	r.ps.Close()
	r.wg.Wait()
	return r.rdb.Close()
}

// State returns the cluster-wide presence, users, counts and cache, for
// hub.SetState.
func (r *Redis) State() hub.State {
	return hub.State{Presence: &r.presence, Users: &r.users, Counts: &r.counts, Cache: cache{r}}
}

// withShares runs f with r.shares held.
func (r *Redis) withShares(f func()) {
	r.shares.Lock()
	defer r.shares.Unlock()
	f()
}

// Ready reports nil when Redis is reachable, else why the node is degraded.
func (r *Redis) Ready() error {
	if !r.healthy.Load() {
		return errors.New("redis unreachable: local delivery only, cluster traffic buffered")
	}
	return nil
}

// Dropped returns how many outbound messages were dropped because the
// outbox was full.
func (r *Redis) Dropped() int64 { return r.dropped.Load() }

// key joins the prefix and parts with ':'.
func (r *Redis) key(parts ...string) string {
	k := r.cfg.Prefix
	for _, p := range parts {
		k += ":" + p
	}
	return k
}

// setHealthy records the state of the link, logging changes.
func (r *Redis) setHealthy(ok bool, err error) {
	if r.healthy.Swap(ok) == ok {
		return
	}
	if ok {
		r.log.Info("redis reachable: serving as a cluster node", "node", r.node, "prefix", r.cfg.Prefix)
	} else {
		r.log.Warn("redis unreachable: serving local connections only", "err", err)
	}
}

// call runs f against Redis with a bounded wait, unless the link is known to
// be down; it reports whether f succeeded. Only a failure to reach Redis
// marks the node degraded; an error reply is logged.
func (r *Redis) call(f func(ctx context.Context) error) bool {
	if !r.healthy.Load() {
		return false
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
	defer cancel()
	err := f(ctx)
	var reply redis.Error
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		return true
	case errors.As(err, &reply):
		r.log.Error("redis refused a command", "err", err)
	default:
		r.setHealthy(false, err)
	}
	return false
}

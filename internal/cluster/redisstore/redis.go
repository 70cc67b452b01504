package redisstore

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/redisurl"
)

// Config holds what a cluster node needs.
type Config struct {
	// URL names one Redis, a Redis Cluster or a Sentinel primary, in one of
	// the forms of redisurl.Parse.
	URL string
	cluster.Settings
}

// Redis is one node's link to the cluster. It is a hub.Broker, and State
// returns the cluster's versions of the hub's shared state.
type Redis struct {
	cfg  Config
	node string
	rdb  redis.UniversalClient
	log  *slog.Logger

	// topics are the node's subscriptions; sharded means a Redis Cluster,
	// where topics are sharded channels (SSUBSCRIBE, SPUBLISH).
	topics  topics
	sharded bool

	outbox   chan outbound
	subs     cluster.SubQueue
	awaiting awaiting
	dropped  atomic.Int64
	dupes    atomic.Int64 // messages from other nodes received twice
	seen     seen         // shared by the receive loops

	link     cluster.Link // is Redis reachable, since when, what to do about it
	ops      chan *op     // presence and user changes, for opsLoop
	epoch    atomic.Uint64
	until    atomic.Int64 // Unix ns: reconciliation rounds run until then
	deferred cluster.Departures

	// This node's own share of the shared state, to answer from while
	// Redis is away and to write again when Redis comes back. Presence and
	// users change only on opsLoop, in the order Redis gets the changes;
	// counts change under the lock of their cluster.Book.
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
	cfg.ApplyDefaults()
	if strings.ContainsAny(cfg.Prefix, "{}") {
		return nil, errors.New("cluster: the prefix must not hold '{' or '}' (hash tags are roost's own)")
	}
	rdb, kind, err := dial(cfg.URL, cfg.SlowReply, cfg.NodeTTL/3)
	if err != nil {
		return nil, err
	}
	r := &Redis{
		cfg: cfg, node: strconv.FormatUint(cfg.Node, 10), rdb: rdb, log: cfg.Logger,
		outbox: make(chan outbound, cfg.Outbox), subs: cluster.NewSubQueue(),
		ops: make(chan *op, maxQueuedOps), link: cluster.NewLink(),
	}
	r.presence = presence{r: r, local: hub.NewMemoryPresence()}
	r.users = users{r: r, local: hub.NewMemoryUsers()}
	r.counts = newCounts(r)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if cc, ok := rdb.(*redis.ClusterClient); ok && kind == redisurl.Cluster {
		r.topics, r.sharded = newShardedTopics(r, cc), true
	} else {
		r.topics = newPlainTopics(r)
	}
	r.start(r.publishLoop, r.topics.run, r.subscribeLoop, r.opsLoop, r.tickLoop)
	r.probe()
	r.start(r.healthLoop)
	return r, nil
}

func (r *Redis) start(loops ...func()) {
	for _, f := range loops {
		r.wg.Go(f)
	}
}

// Close stops the node's goroutines and removes its heartbeat, so the others
// clean up after it at once.
func (r *Redis) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r.link.Drain(ctx, func() int { return len(r.outbox) })
	r.counts.flush()
	r.rdb.Del(ctx, r.nodeKey("node", r.node))
	r.cancel()
	r.topics.close()
	r.wg.Wait()
	return r.rdb.Close()
}

// State returns the cluster-wide presence, users, counts and cache, for
// hub.SetState.
func (r *Redis) State() hub.State {
	return hub.State{Presence: &r.presence, Users: &r.users, Counts: &r.counts, Cache: cache{r}}
}

// Ready reports nil when Redis is reachable, else why the node is degraded.
func (r *Redis) Ready() error { return r.link.Ready("redis") }

// Dropped returns how many outbound messages were dropped because the
// outbox was full.
func (r *Redis) Dropped() int64 { return r.dropped.Load() }

// Duplicates returns how many messages from other nodes arrived twice and
// were delivered once.
func (r *Redis) Duplicates() int64 { return r.dupes.Load() }

// errDown is what a call returns while Redis is known to be unreachable:
// the caller answers from this node's own state.
var errDown = errors.New("redis unreachable")

// call runs f against Redis under ctx, unless Redis is known to be
// unreachable (errDown). A reply that does not come in time is returned
// as is, and has the link checked; a failure to reach Redis marks the node
// degraded and returns errDown; an error reply is logged and returned.
func (r *Redis) call(ctx context.Context, f func(ctx context.Context) error) error {
	if !r.link.Healthy.Load() {
		return errDown
	}
	err := f(ctx)
	if err == nil || errors.Is(err, redis.Nil) {
		return nil
	}
	return r.failed(err)
}

// failed sorts out an error from Redis (see call).
func (r *Redis) failed(err error) error {
	var reply redis.Error
	switch {
	case errors.As(err, &reply):
		r.log.Error("redis refused a command", "err", err)
		return err
	case timedOut(err):
		r.link.Suspect()
		return err
	default:
		r.down(err)
		return errDown
	}
}

// timedOut reports an error that says Redis did not answer in time, as
// opposed to one that says it cannot be reached.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

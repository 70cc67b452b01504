package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/redisurl"
)

// Redis is a cluster's store on one Redis, a Redis Cluster or a Sentinel
// primary.
type Redis struct {
	cfg  *cluster.Settings
	node string
	rdb  redis.UniversalClient
	log  *slog.Logger
	n    *cluster.Node
	ctx  context.Context
	link *cluster.Link

	// topics are the node's subscriptions; sharded means a Redis Cluster,
	// where topics are sharded channels (SSUBSCRIBE, SPUBLISH).
	topics   topics
	sharded  bool
	awaiting awaiting
	seen     cluster.Seen // shared by the receive loops
	ops      chan *op     // presence and user changes, for opsLoop
	seqs     numbering
}

var _ cluster.Store = (*Redis)(nil)

func open(url string, s cluster.Settings) (*Redis, error) {
	if err := redisurl.CheckPrefix(s.Prefix); err != nil {
		return nil, fmt.Errorf("cluster: the prefix %w", err)
	}
	rdb, kind, err := dial(url, s.SlowReply, s.NodeTTL/3)
	if err != nil {
		return nil, err
	}
	r := &Redis{rdb: rdb, sharded: kind == redisurl.Cluster, ops: make(chan *op, maxQueuedOps)}
	r.seqs = newNumbering(r.sharded)
	return r, nil
}

// Name implements cluster.Store.
func (r *Redis) Name() string { return "redis" }

// Start implements cluster.Store.
func (r *Redis) Start(n *cluster.Node) {
	r.n, r.cfg, r.node, r.log = n, n.Settings(), n.ID(), n.Settings().Logger
	r.ctx, r.link = n.Context(), n.Link()
	if r.sharded {
		r.topics = newShardedTopics(r, r.rdb.(*redis.ClusterClient))
	} else {
		r.topics = newPlainTopics(r)
	}
	n.Go(r.topics.run)
	n.Go(r.opsLoop)
}

// Close implements cluster.Store.
func (r *Redis) Close(wait func()) error {
	r.topics.close()
	wait()
	return r.rdb.Close()
}

// errDown is what a call returns while Redis is known to be unreachable:
// the caller answers from this node's own state.
var errDown = fmt.Errorf("redis: %w", cluster.ErrDown)

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

// pipeline sends the commands queue queues on p in one pipeline, through
// call.
func (r *Redis) pipeline(ctx context.Context, queue func(ctx context.Context, p redis.Pipeliner)) error {
	return r.call(ctx, func(ctx context.Context) error { return r.pipelined(ctx, queue) })
}

// pipelined sends the commands queue queues on p in one pipeline, with
// no check of the link: for the callers that sort out errors themselves.
func (r *Redis) pipelined(ctx context.Context, queue func(ctx context.Context, p redis.Pipeliner)) error {
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		queue(ctx, p)
		return nil
	})
	return err
}

// failed sorts out an error from Redis (see call).
func (r *Redis) failed(err error) error {
	switch {
	case isReply(err):
		r.log.Error("redis refused a command", "err", err)
		return err
	case timedOut(err):
		r.link.Suspect()
		return err
	default:
		r.n.Down(err)
		return errDown
	}
}

// timedOut reports an error that says Redis did not answer in time, as
// opposed to one that says it cannot be reached.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// pairKey splits a "app:channel" member of a node's presence list.
func pairKey(ac string) cluster.Key {
	app, channel, _ := strings.Cut(ac, ":")
	return cluster.Key{App: app, Name: channel}
}

package redisstore

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// probeEvery is how often a degraded node tries Redis again, so that it is
// ready again soon after Redis is.
const probeEvery = 200 * time.Millisecond

// The node's link to Redis follows the rules of package cluster. Redis
// counts as unreachable when it refuses or drops a connection, or when it
// leaves the heartbeat (or a probe) unanswered for SlowReply; one slow
// reply to another call only has the heartbeat run at once. While
// unreachable the node probes every probeEvery.

// settled reports whether Redis has been reachable for d since the last
// outage this node saw (or since it started, if it saw none).
func (r *Redis) settled(d time.Duration) bool { return r.link.Settled(d) }

// period is the heartbeat period.
func (r *Redis) period() time.Duration { return r.cfg.NodeTTL / 3 }

// healthLoop refreshes the heartbeat and watches the other nodes while
// Redis is reachable, and probes it while it is not.
func (r *Redis) healthLoop() {
	beat := time.NewTicker(r.period())
	defer beat.Stop()
	probe := time.NewTicker(probeEvery)
	defer probe.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-beat.C:
		case <-r.link.Suspects():
		case <-probe.C:
			if !r.link.Healthy.Load() {
				r.probe()
			}
			continue
		}
		if r.link.Healthy.Load() {
			r.heartbeat()
		}
	}
}

// probe checks whether Redis answers and, if it does, takes the node back
// into the cluster.
func (r *Redis) probe() {
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.SlowReply)
	defer cancel()
	if err := r.rdb.Ping(ctx).Err(); err != nil {
		r.down(err)
		return
	}
	r.up()
	r.heartbeat()
}

// down records that Redis is unreachable.
func (r *Redis) down(err error) {
	r.counts.Dirty.Store(true)
	if r.link.Down() {
		r.log.Warn("redis unreachable: serving local connections only", "err", err)
	}
}

// up records that Redis answers again.
func (r *Redis) up() {
	if r.link.Up() {
		r.log.Info("redis reachable: serving as a cluster node", "node", r.node, "prefix", r.cfg.Prefix)
	}
}

// heartbeat refreshes this node's key, whose value is the node's epoch.
// When the key was missing (Redis lost it, or the node was taken for dead)
// or Redis may lack some of the node's changes, the node writes its shares
// again and takes a new epoch, which tells the others to check what their
// clients were told. Then it looks at the other nodes.
func (r *Redis) heartbeat() {
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.SlowReply)
	defer cancel()
	missing, err := r.beat(ctx)
	if err != nil {
		r.down(err)
		return
	}
	r.up()
	if missing || r.link.Dirty.Load() {
		if err := r.resync(); err != nil {
			r.log.Warn("cluster state not written again", "err", err)
			return
		}
		if _, err := r.beat(ctx); err != nil {
			r.down(err)
			return
		}
	}
	r.lookAround(ctx)
}

// beat sets this node's heartbeat key and lists the node; missing reports
// that the key was not there.
func (r *Redis) beat(ctx context.Context) (missing bool, err error) {
	epoch := strconv.FormatUint(r.epoch.Load(), 10)
	_, err = r.rdb.SetArgs(ctx, r.nodeKey("node", r.node), epoch, redis.SetArgs{TTL: r.cfg.NodeTTL, Get: true}).Result()
	missing = errors.Is(err, redis.Nil)
	if err != nil && !missing {
		return false, err
	}
	return missing, r.rdb.SAdd(ctx, r.nodeKey("nodes"), r.node).Err()
}

// lookAround reaps the nodes whose heartbeat has expired, once this node
// has been connected long enough to tell, and has the node's clients
// checked when another node has written its shares again.
func (r *Redis) lookAround(ctx context.Context) {
	var nodes []string
	if r.call(ctx, func(ctx context.Context) (err error) {
		nodes, err = r.rdb.SMembers(ctx, r.nodeKey("nodes")).Result()
		return err
	}) != nil || len(nodes) == 0 {
		return
	}
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		keys[i] = r.nodeKey("node", n)
	}
	var epochs []any
	if r.call(ctx, func(ctx context.Context) (err error) {
		epochs, err = r.rdb.MGet(ctx, keys...).Result()
		return err
	}) != nil {
		return
	}
	alive := make(map[string]string, len(nodes))
	for i, n := range nodes {
		if epoch, ok := epochs[i].(string); ok {
			alive[n] = epoch
		} else if n != r.node && r.settled(r.cfg.NodeTTL) {
			r.reapIfDead(n)
		}
	}
	if r.link.Epochs(alive, r.node) {
		r.reconcileSoon()
	}
}

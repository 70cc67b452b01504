package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// Presence and user changes go to Redis through one queue, served by
// opsLoop in pipelined batches, so that many changes at once cost one
// round trip. The node orders the changes of one key (cluster.Node.apply).

// The states of an op: the caller may give up on a queued op (its
// deadline passed), and then opsLoop skips it.
const (
	queued int32 = iota
	taken
	abandoned
)

// op is one change queued for opsLoop.
type op struct {
	ctx    context.Context
	state  atomic.Int32
	done   chan error
	c      *cluster.Change
	script *redis.Cmd // the change, once queued on a pipeline
}

// errOverloaded refuses a change when opsLoop has a full queue.
var errOverloaded = errors.New("too many changes wait for redis")

// maxBatch is how many changes opsLoop sends in one pipeline, and
// maxQueuedOps how many may wait for it.
const (
	maxBatch     = 256
	maxQueuedOps = 4096
)

// Change implements cluster.Shares: it queues the change and waits for
// Redis's answer, or until ctx ends.
func (r *Redis) Change(ctx context.Context, c *cluster.Change) (before, after int, full bool, err error) {
	o := &op{ctx: ctx, c: c, done: make(chan error, 1)}
	select {
	case r.ops <- o:
	default:
		return 0, 0, false, errOverloaded
	}
	select {
	case err = <-o.done:
	case <-ctx.Done():
		if o.state.CompareAndSwap(queued, abandoned) {
			return 0, 0, false, ctx.Err()
		}
		err = <-o.done // under way, bounded by ctx too
	}
	if err != nil {
		return 0, 0, false, err
	}
	return totals(o.script)
}

// opsLoop applies queued changes in order.
func (r *Redis) opsLoop() {
	batch := make([]*op, 0, maxBatch)
	for {
		select {
		case <-r.ctx.Done():
			return
		case o := <-r.ops:
			batch = append(batch[:0], o)
		}
		for len(batch) < maxBatch && len(r.ops) > 0 {
			batch = append(batch, <-r.ops)
		}
		r.runOps(batch)
	}
}

// runOps sends a batch in one pipeline and answers each op: a failure to
// reach Redis, or no answer in time, is every op's; an error reply is the
// script's own.
func (r *Redis) runOps(batch []*op) {
	ops := batch[:0:0]
	for _, o := range batch {
		if o.state.CompareAndSwap(queued, taken) {
			ops = append(ops, o)
		}
	}
	if len(ops) == 0 {
		return
	}
	ctx, cancel := context.WithDeadline(r.ctx, earliest(ops))
	defer cancel()
	err := r.pipelined(ctx, func(ctx context.Context, p redis.Pipeliner) {
		for _, o := range ops {
			r.queueRemote(ctx, p, o)
		}
	})
	if err != nil && !isReply(err) {
		err = r.failed(err)
	} else {
		err = nil
	}
	for _, o := range ops {
		o.done <- err
	}
}

// earliest returns the earliest deadline of ops, at most a minute away.
func earliest(ops []*op) time.Time {
	var t time.Time
	for _, o := range ops {
		if d, ok := o.ctx.Deadline(); ok && (t.IsZero() || d.Before(t)) {
			t = d
		}
	}
	if t.IsZero() {
		t = time.Now().Add(time.Minute)
	}
	return t
}

// isReply reports an error reply from Redis, as opposed to no reply.
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}

// queueRemote queues o's change to Redis's copy on p. A join lists the
// channel among the node's presence channels, for a reaper to find.
func (r *Redis) queueRemote(ctx context.Context, p redis.Pipeliner, o *op) {
	c := o.c
	key, info, max := r.usersKey(c.App), "", 0
	switch c.Kind {
	case cluster.Join:
		list := r.nodeKey("node-presence", r.node)
		p.SAdd(ctx, list, c.App+":"+c.Channel)
		p.Expire(ctx, list, cluster.RecordTTL)
		key, info, max = r.presenceKey(c.App, c.Channel), c.Member.Info, c.Max
	case cluster.Leave:
		key = r.presenceKey(c.App, c.Channel)
	}
	o.script = addScript.Eval(ctx, p, []string{key}, c.Member.ID, r.node, c.Delta(), info, max)
	if c.Kind == cluster.Join {
		p.PExpire(ctx, key, cluster.ShareTTL) // it may have created the key (expiry.go)
	}
}

// totals reads addScript's answer: the entry's totals before and after the
// change, or full when a new entry would exceed the maximum.
func totals(cmd *redis.Cmd) (before, after int, full bool, err error) {
	res, err := cmd.Result()
	if err != nil {
		return 0, 0, false, fmt.Errorf("redis: %w", err)
	}
	t, ok := res.([]any)
	if !ok || len(t) != 2 {
		return 0, 0, true, nil
	}
	b, _ := t[0].(int64)
	a, _ := t[1].(int64)
	return int(b), int(a), false, nil
}

package cluster

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/clusterkit/sharechange"
	"github.com/roostproject/roost/internal/hub"
)

// Presence joins and leaves and user sign-ins and sign-outs change this
// node's own share (presence.local, users.local) and Redis's copy of it
// together. They go through one queue, served by opsLoop in order and in
// pipelined batches, and so does the resync that writes every share again:
// what a resync writes is exactly the share after the changes before it,
// and a change after it is applied on top, without any lock held across a
// call to Redis.

// The states of an op: the caller may give up on a queued op (its
// deadline passed), and then opsLoop skips it.
const (
	queued int32 = iota
	taken
	abandoned
)

// op is one change queued for opsLoop.
type op struct {
	ctx   context.Context
	state atomic.Int32
	done  chan result

	sharechange.Change              // a presence or user change, unless resync is set
	script             *redis.Cmd   // the change, once queued on a pipeline
	resync             func() error // the whole rewrite, instead of a change
}

// result is what an op reports: first or last, or an error.
type result struct {
	yes bool
	err error
}

// errOverloaded refuses a change when opsLoop has a full queue.
var errOverloaded = errors.New("too many changes wait for redis")

// submit queues o and waits for its result, or until o.ctx ends.
func (r *Redis) submit(o *op) (bool, error) {
	o.done = make(chan result, 1)
	select {
	case r.ops <- o:
	default:
		return false, errOverloaded
	}
	select {
	case res := <-o.done:
		o.Greet(r.cfg.Deliver)
		return res.yes, res.err
	case <-o.ctx.Done():
		if o.state.CompareAndSwap(queued, abandoned) {
			return false, o.ctx.Err()
		}
		res := <-o.done // under way, bounded by o.ctx too
		o.Greet(r.cfg.Deliver)
		return res.yes, res.err
	}
}

// maxBatch is how many changes opsLoop sends in one pipeline, and
// maxQueuedOps how many may wait for it.
const (
	maxBatch     = 256
	maxQueuedOps = 4096
)

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

// runOps applies a batch: each resync on its own, the changes between them
// in one pipeline.
func (r *Redis) runOps(batch []*op) {
	var changes []*op
	for _, o := range batch {
		if !o.state.CompareAndSwap(queued, taken) {
			continue
		}
		if o.resync != nil {
			r.applyChanges(changes)
			changes = changes[:0]
			o.done <- result{err: o.resync()}
			continue
		}
		changes = append(changes, o)
	}
	r.applyChanges(changes)
}

// applyChanges changes the local shares, then Redis's copies, and answers
// each op: with Redis's answer, or the local one while Redis is away.
func (r *Redis) applyChanges(ops []*op) {
	var remote []*op
	for _, o := range ops {
		if err := o.ApplyLocal(r.presence.local, r.users.local); err != nil {
			o.done <- result{err: err}
			continue
		}
		remote = append(remote, o)
	}
	if len(remote) == 0 {
		return
	}
	if !r.link.Healthy.Load() {
		r.link.Dirty.Store(true)
		for _, o := range remote {
			o.done <- result{yes: o.LocalAnswer(&r.deferred)}
		}
		return
	}
	ctx, cancel := context.WithDeadline(r.ctx, earliest(remote))
	defer cancel()
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, o := range remote {
			r.queueRemote(ctx, p, o)
		}
		return nil
	})
	if err != nil && !isReply(err) {
		r.remoteFailed(remote, err)
		return
	}
	for _, o := range remote {
		o.done <- r.answer(o)
	}
}

// earliest returns the earliest deadline of ops, at most SlowReply away.
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

// remoteFailed answers ops Redis did not answer. Whether it carried them
// out is unknown, so the node will write its shares again. If Redis is
// unreachable, the local answers stand; if it is only slow, a join or a
// sign-in is taken back and fails, a sign-out (whose connection is gone)
// stands without an announcement, and a leave of the member's last
// connection here is deferred as while Redis is unreachable: Redis may
// carry it out when it answers again, and the departure is announced once
// Redis confirms it.
func (r *Redis) remoteFailed(ops []*op, err error) {
	r.link.Dirty.Store(true)
	unreachable := errors.Is(r.failed(err), errDown)
	for _, o := range ops {
		switch {
		case unreachable || o.Kind == sharechange.Leave:
			o.done <- result{yes: o.LocalAnswer(&r.deferred)}
		case o.Adds():
			o.Undo()
			o.done <- result{err: err}
		default:
			o.done <- result{}
		}
	}
}

// queueRemote queues o's change to Redis's copy on p.
func (r *Redis) queueRemote(ctx context.Context, p redis.Pipeliner, o *op) {
	key, info, max := r.usersKey(o.App), "", 0
	switch o.Kind {
	case sharechange.Join:
		p.SAdd(ctx, r.nodeKey("node-presence", r.node), o.App+":"+o.Channel)
		key, info, max = r.presenceKey(o.App, o.Channel), o.Member.Info, o.Max
	case sharechange.Leave:
		key = r.presenceKey(o.App, o.Channel)
	}
	o.script = addScript.Eval(ctx, p, []string{key}, o.Member.ID, r.node, o.Delta(), info, max)
}

// answer reads Redis's answer to o: whether the user's total across the
// cluster left zero (join, sign-in) or reached it (leave, sign-out). A
// departure is deferred while the node is not settled: another node may
// not have written its share of the user again yet.
func (r *Redis) answer(o *op) result {
	before, after, full, err := totals(o.script)
	switch {
	case err != nil:
		r.link.Dirty.Store(true)
		if o.Undo != nil {
			o.Undo()
			return result{err: err}
		}
		return result{}
	case full:
		o.Undo()
		return result{err: hub.ErrChannelFull}
	}
	return result{yes: o.Answer(before, after, r.settled(r.period()), &r.deferred)}
}

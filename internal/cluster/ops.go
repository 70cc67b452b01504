package cluster

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// Presence joins and leaves and user sign-ins and sign-outs change this
// node's own share (presence.local, users.local) and Redis's copy of it
// together. They go through one queue, served by opsLoop in order and in
// pipelined batches, and so does the resync that writes every share again:
// what a resync writes is exactly the share after the changes before it,
// and a change after it is applied on top, without any lock held across a
// call to Redis.

// opKind is what an op changes.
type opKind uint8

const (
	opJoin opKind = iota
	opLeave
	opSignIn
	opSignOut
	opResync
)

// The states of an op: the caller may give up on a queued op (its
// deadline passed), and then opsLoop skips it.
const (
	queued int32 = iota
	taken
	abandoned
)

// op is one change queued for opsLoop.
type op struct {
	ctx     context.Context
	kind    opKind
	app     string
	channel string
	member  hub.Member // the user (ID) and, to join, its info
	max     int
	state   atomic.Int32
	done    chan result

	local  bool         // the local answer, kept if Redis cannot be asked
	script *redis.Cmd   // the change, once queued on a pipeline
	resync func() error // opResync: the whole rewrite
	undo   func()       // takes the local change back
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
		return res.yes, res.err
	case <-o.ctx.Done():
		if o.state.CompareAndSwap(queued, abandoned) {
			return false, o.ctx.Err()
		}
		res := <-o.done // under way, bounded by o.ctx too
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
		if o.kind == opResync {
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
		if err := r.applyLocal(o); err != nil {
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
			o.done <- result{yes: r.local(o)}
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
// sign-in is taken back and fails, and a leave or a sign-out (whose
// connection is gone) stands without an announcement.
func (r *Redis) remoteFailed(ops []*op, err error) {
	r.link.Dirty.Store(true)
	unreachable := errors.Is(r.failed(err), errDown)
	for _, o := range ops {
		switch {
		case unreachable:
			o.done <- result{yes: r.local(o)}
		case o.kind == opJoin || o.kind == opSignIn:
			o.undo()
			o.done <- result{err: err}
		default:
			o.done <- result{}
		}
	}
}

// applyLocal makes o's change to this node's share; an error (the channel
// is full already on this node) is o's answer.
func (r *Redis) applyLocal(o *op) error {
	ctx := context.Background()
	p, u, m := r.presence.local, r.users.local, o.member
	switch o.kind {
	case opJoin:
		first, err := p.Join(ctx, o.app, o.channel, m, o.max)
		o.local, o.undo = first, func() { p.Leave(ctx, o.app, o.channel, m.ID) }
		return err
	case opLeave:
		o.local, _ = p.Leave(ctx, o.app, o.channel, m.ID)
	case opSignIn:
		o.local, _ = u.SignIn(ctx, o.app, m.ID)
		o.undo = func() { u.SignOut(ctx, o.app, m.ID) }
	case opSignOut:
		o.local, _ = u.SignOut(ctx, o.app, m.ID)
	}
	return nil
}

// local returns o's answer from this node's share alone, while Redis is
// away: a member that leaves is not announced yet (see deferred).
func (r *Redis) local(o *op) bool {
	if o.kind == opLeave && o.local {
		r.deferred.Add(o.app, o.channel, o.member.ID)
		return false
	}
	return o.local
}

// queueRemote queues o's change to Redis's copy on p.
func (r *Redis) queueRemote(ctx context.Context, p redis.Pipeliner, o *op) {
	key, delta, info, max := r.usersKey(o.app), 1, "", 0
	switch o.kind {
	case opJoin:
		p.SAdd(ctx, r.nodeKey("node-presence", r.node), o.app+":"+o.channel)
		key, info, max = r.presenceKey(o.app, o.channel), o.member.Info, o.max
	case opLeave:
		key, delta = r.presenceKey(o.app, o.channel), -1
	case opSignOut:
		delta = -1
	}
	o.script = addScript.Eval(ctx, p, []string{key}, o.member.ID, r.node, delta, info, max)
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
		if o.undo != nil {
			o.undo()
			return result{err: err}
		}
		return result{}
	case full:
		o.undo()
		return result{err: hub.ErrChannelFull}
	case o.kind == opJoin || o.kind == opSignIn:
		return result{yes: before == 0}
	}
	gone := before > 0 && after == 0
	if gone && o.kind == opLeave && !r.settled(r.period()) {
		r.deferred.Add(o.app, o.channel, o.member.ID)
		gone = false
	}
	return result{yes: gone}
}

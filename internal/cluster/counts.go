package cluster

import (
	"context"

	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: each node's subscriptions to each
// channel, in the store. Changes are gathered in the Book and written every
// flushEvery in batches (by tickLoop, which also writes them all again
// after an outage), so Subscribed never waits for the store; reads add the
// changes not written yet, and wait for a flush under way (Book.Writing).
type counts struct {
	n *Node
	Book
	// sent is the batch written and not answered yet (waiting), sent again
	// until the store answers; outright says it is a resync (SetCounts),
	// and id is the last batch's. All guarded by Book.Writing.
	sent     Batch
	waiting  bool
	outright bool
	id       uint64
}

var _ hub.Counts = (*counts)(nil)

// Count implements hub.Counts.
func (c *counts) Count(ctx context.Context, app, channel string) (int, error) {
	k := Key{App: app, Name: channel}
	c.Writing.RLock()
	defer c.Writing.RUnlock()
	total, err := read(c.n, ctx, func() (int, error) { return c.n.store.Count(ctx, app, channel) })
	switch {
	case Unreachable(err):
		return c.Of(false, k), nil
	case err != nil:
		return 0, err
	}
	return total + c.Of(true, k), nil
}

// Channels implements hub.Counts.
func (c *counts) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	c.Writing.RLock()
	defer c.Writing.RUnlock()
	out, err := read(c.n, ctx, func() (map[string]int, error) { return c.n.store.Channels(ctx, app, prefix) })
	switch {
	case Unreachable(err):
		return c.WithPrefix(false, app, prefix), nil
	case err != nil:
		return nil, err
	}
	for name, d := range c.WithPrefix(true, app, prefix) {
		out[name] += d
	}
	return out, nil
}

// flush sends again the batch the store has not answered, if there is
// one, and then the changes gathered since the last flush as a new batch.
// While the store is away the changes wait.
func (c *counts) flush() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	if !c.n.link.Healthy.Load() || c.waiting && !c.send() {
		return
	}
	if pending := c.TakePending(); len(pending) > 0 {
		c.next(pending, false)
		c.send()
	}
}

// resync writes this node's count of every channel outright, and drops its
// share of channels it no longer has subscribers on. The batch the store
// has not answered goes first, so that its transitions are reported once.
func (c *counts) resync() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	if c.waiting && !c.send() {
		return
	}
	c.next(c.TakeAll(), true)
	c.send()
}

// next makes counts the batch to send, under a new id.
func (c *counts) next(counts map[Key]int, outright bool) {
	c.id++
	c.sent, c.outright, c.waiting = Batch{ID: c.id, Counts: counts}, outright, true
}

// send writes c.sent and reports its transitions once the store answers;
// until then it stays, to be sent again under its id (see Batch). It
// reports whether the store answered.
func (c *counts) send() bool {
	write, wait := c.n.store.AddCounts, c.n.cfg.SlowReply
	if c.outright {
		write, wait = c.n.store.SetCounts, c.n.Period()
	}
	ctx, cancel := context.WithTimeout(c.n.ctx, wait)
	defer cancel()
	moved, err := write(ctx, c.sent)
	if err != nil {
		if !Unreachable(err) {
			c.n.link.Suspect()
		}
		return false
	}
	c.sent, c.waiting = Batch{}, false
	c.n.report(moved)
	return true
}

// report tells the observer of channels whose cluster-wide count left or
// reached zero: the store saw the totals around each change, so exactly
// one node reports each transition.
func (n *Node) report(moved []Transition) {
	for _, t := range moved {
		Report(n.cfg.Observer, t.Key, t.Before, t.After)
	}
}

// FlushCounts writes this node's pending count changes now (reporting their
// transitions), as a stopping node does before its webhooks close.
func (n *Node) FlushCounts() { n.counts.flush() }

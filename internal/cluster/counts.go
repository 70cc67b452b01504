package cluster

import (
	"context"

	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: each node's subscriptions to each
// channel, in the store. Changes are gathered in the Book and written every
// flushEvery (by tickLoop, which also writes them all again after an
// outage), so Subscribed never waits for the store; reads add the changes
// not written yet.
type counts struct {
	n *Node
	Book
}

var _ hub.Counts = (*counts)(nil)

// Count implements hub.Counts.
func (c *counts) Count(ctx context.Context, app, channel string) (int, error) {
	k := Key{App: app, Name: channel}
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

// flush writes the changes gathered since the last flush and reports the
// channels whose cluster-wide count it took from or to zero. Changes the
// store did not take wait for the next flush while it is away; a write
// that failed otherwise may have been carried out, so every count is
// written again.
func (c *counts) flush() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	pending := c.TakePending()
	if len(pending) == 0 {
		return
	}
	if !c.n.link.Healthy.Load() {
		c.Keep(pending)
		return
	}
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.cfg.SlowReply)
	defer cancel()
	moved, err := c.n.store.AddCounts(ctx, pending)
	switch {
	case Unreachable(err):
		c.Keep(pending)
	case err != nil:
		c.Dirty.Store(true)
		c.n.link.Suspect()
	}
	c.n.report(moved)
}

// resync writes this node's count of every channel outright, drops its
// share of channels it no longer has subscribers on, and reports the
// channels whose cluster-wide count that took from or to zero.
func (c *counts) resync() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	all := c.TakeAll()
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.Period())
	defer cancel()
	moved, err := c.n.store.SetCounts(ctx, all)
	if err != nil {
		c.Dirty.Store(true)
	}
	c.n.report(moved)
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

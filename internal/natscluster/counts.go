package natscluster

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one key per channel in the counts
// bucket, holding each node's subscriptions to it. Changes are gathered
// here and written every flushEvery (by tickLoop, which also writes them
// all again after an outage), so Subscribed never waits for NATS; reads
// add the changes not written yet.
type counts struct {
	n        *Node
	dirty    atomic.Bool // write every count again at the next flush
	parallel int         // channels written at once by a flush (flushParallel)

	// writing is held through a flush or a resync: one of them at a time,
	// so that a resync never writes a share a flush is still adding to.
	writing sync.Mutex
	mu      sync.Mutex   // guards local and pending, and nothing else
	local   map[pair]int // this node's subscriptions per channel
	pending map[pair]int // changes not yet written
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair struct{ app, name string }

func newCounts(n *Node) counts {
	return counts{n: n, parallel: flushParallel, local: make(map[pair]int), pending: make(map[pair]int)}
}

// Subscribed implements hub.Counts: the change is written within a flush.
func (c *counts) Subscribed(app, channel string, delta int) {
	k := pair{app, channel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local[k] += delta; c.local[k] <= 0 {
		delete(c.local, k)
	}
	addTo(c.pending, k, delta)
}

// addTo adds delta to m[k], dropping the entry when it comes to zero.
func addTo(m map[pair]int, k pair, delta int) {
	if m[k] += delta; m[k] == 0 {
		delete(m, k)
	}
}

// Count implements hub.Counts.
func (c *counts) Count(ctx context.Context, app, channel string) (int, error) {
	k := pair{app, channel}
	b := c.n.kv.Load()
	if b == nil || !c.n.link.healthy.Load() {
		return c.of(false, k), nil
	}
	h, _, err := read(ctx, b.counts, key(app, channel))
	if err != nil {
		c.n.link.suspect()
		return 0, err
	}
	total := 0
	if e := h[""]; e != nil {
		total = e.total()
	}
	return total + c.of(true, k), nil
}

// Channels implements hub.Counts: one pass over the app's keys.
func (c *counts) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	b := c.n.kv.Load()
	if b == nil || !c.n.link.healthy.Load() {
		return c.withPrefix(false, app, prefix), nil
	}
	out := make(map[string]int)
	err := scan(ctx, b.counts, token(app)+".*", func(k string, h hash) {
		_, name, ok := splitKey(k)
		if e := h[""]; ok && e != nil && strings.HasPrefix(name, prefix) {
			out[name] = e.total()
		}
	})
	if err != nil {
		c.n.link.suspect()
		return nil, err
	}
	for name, d := range c.withPrefix(true, app, prefix) {
		if out[name] += d; out[name] <= 0 {
			delete(out, name)
		}
	}
	return out, nil
}

// of reads the local count of k, or its pending change.
func (c *counts) of(pending bool, k pair) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.which(pending)[k]
}

// which returns c.pending or c.local; c.mu is held.
func (c *counts) which(pending bool) map[pair]int {
	if pending {
		return c.pending
	}
	return c.local
}

// withPrefix copies the local counts, or the pending changes, of the
// channels of app that start with prefix.
func (c *counts) withPrefix(pending bool, app, prefix string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int)
	for k, n := range c.which(pending) {
		if k.app == app && strings.HasPrefix(k.name, prefix) {
			out[k.name] = n
		}
	}
	return out
}

// flush writes the changes gathered since the last flush, one
// compare-and-set each, and reports the channels whose cluster-wide count
// it took from or to zero. Changes NATS did not take wait for the next
// flush while it is away; a write that failed otherwise may have been
// carried out, so every count is written again.
func (c *counts) flush() {
	c.writing.Lock()
	defer c.writing.Unlock()
	c.mu.Lock()
	pending := c.pending
	c.pending = make(map[pair]int)
	c.mu.Unlock()
	b := c.n.kv.Load()
	if len(pending) > 0 && (b == nil || !c.n.link.healthy.Load()) {
		c.keep(pending)
		return
	}
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.cfg.SlowReply)
	defer cancel()
	keys := make([]pair, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	inParallel(c.parallel, keys, func(k pair) {
		before, after, _, err := changeShare(ctx, b.counts, &c.n.guesses, key(k.app, k.name), "", c.n.node, pending[k], "", 0)
		if err != nil {
			c.dirty.Store(true)
			c.n.link.suspect()
			return
		}
		c.n.transition(k, before, after)
	})
}

// flushParallel is how many channels' counts a flush writes at once: each
// is a read and a compare-and-set, so one at a time would take a flush
// period for a few hundred changed channels.
const flushParallel = 16

// inParallel calls f for each item, at most limit calls at once, and
// returns when all have returned.
func inParallel[T any](limit int, items []T, f func(T)) {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(it)
		}()
	}
	wg.Wait()
}

// keep puts changes back for the next flush.
func (c *counts) keep(pending map[pair]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range pending {
		addTo(c.pending, k, d)
	}
}

// resync writes this node's count of every channel outright, drops its
// share of channels it no longer has subscribers on, and reports the
// channels whose cluster-wide count that took from or to zero.
func (c *counts) resync() {
	b := c.n.kv.Load()
	if b == nil {
		return
	}
	c.writing.Lock()
	defer c.writing.Unlock()
	c.mu.Lock()
	want := make(map[string]map[string]share, len(c.local))
	for k, n := range c.local {
		want[key(k.app, k.name)] = map[string]share{"": {n: n}}
	}
	c.pending = make(map[pair]int)
	c.dirty.Store(false)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.period())
	defer cancel()
	moved, err := setShares(ctx, b.counts, c.n.node, want)
	if err != nil {
		c.dirty.Store(true)
	}
	for _, m := range moved {
		if app, name, ok := splitKey(m.key); ok && m.up {
			c.n.transition(pair{app, name}, 0, 1)
		} else if ok {
			c.n.transition(pair{app, name}, 1, 0)
		}
	}
}

// transition reports the change of a channel's cluster-wide count.
func (n *Node) transition(k pair, before, after int) {
	switch {
	case before == 0 && after > 0:
		n.cfg.Observer.ChannelOccupied(k.app, k.name)
	case before > 0 && after == 0:
		n.cfg.Observer.ChannelVacated(k.app, k.name)
	}
}

// FlushCounts writes this node's pending count changes now (reporting their
// transitions), as a stopping node does before its webhooks close.
func (n *Node) FlushCounts() { n.counts.flush() }

package natsstore

import (
	"context"
	"strings"
	"sync"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one key per channel in the counts
// bucket, holding each node's subscriptions to it. Changes are gathered
// here and written every flushEvery (by tickLoop, which also writes them
// all again after an outage), so Subscribed never waits for NATS; reads
// add the changes not written yet.
type counts struct {
	n        *Node
	parallel int // channels written at once by a flush (flushParallel)
	cluster.Book
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair = cluster.Key

func newCounts(n *Node) counts {
	return counts{n: n, parallel: flushParallel}
}

// Count implements hub.Counts.
func (c *counts) Count(ctx context.Context, app, channel string) (int, error) {
	k := pair{App: app, Name: channel}
	b := c.n.kv.Load()
	if b == nil || !c.n.link.Healthy.Load() {
		return c.Of(false, k), nil
	}
	h, _, err := read(ctx, b.counts, key(app, channel))
	if err != nil {
		c.n.link.Suspect()
		return 0, err
	}
	total := 0
	if e := h[""]; e != nil {
		total = e.total()
	}
	return total + c.Of(true, k), nil
}

// Channels implements hub.Counts: one pass over the app's keys.
func (c *counts) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	b := c.n.kv.Load()
	if b == nil || !c.n.link.Healthy.Load() {
		return c.WithPrefix(false, app, prefix), nil
	}
	out := make(map[string]int)
	err := scan(ctx, b.counts, token(app)+".*", func(k string, h hash) {
		_, name, ok := splitKey(k)
		if e := h[""]; ok && e != nil && strings.HasPrefix(name, prefix) {
			out[name] = e.total()
		}
	})
	if err != nil {
		c.n.link.Suspect()
		return nil, err
	}
	for name, d := range c.WithPrefix(true, app, prefix) {
		if out[name] += d; out[name] <= 0 {
			delete(out, name)
		}
	}
	return out, nil
}

// flush writes the changes gathered since the last flush, one
// compare-and-set each, and reports the channels whose cluster-wide count
// it took from or to zero. Changes NATS did not take wait for the next
// flush while it is away; a write that failed otherwise may have been
// carried out, so every count is written again.
func (c *counts) flush() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	pending := c.TakePending()
	b := c.n.kv.Load()
	if len(pending) > 0 && (b == nil || !c.n.link.Healthy.Load()) {
		c.Keep(pending)
		return
	}
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.cfg.SlowReply)
	defer cancel()
	keys := make([]pair, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	inParallel(c.parallel, keys, func(k pair) {
		before, after, _, err := changeShare(ctx, b.counts, &c.n.guesses, key(k.App, k.Name), "", c.n.node, pending[k], "", 0)
		if err != nil {
			c.Dirty.Store(true)
			c.n.link.Suspect()
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

// resync writes this node's count of every channel outright, drops its
// share of channels it no longer has subscribers on, and reports the
// channels whose cluster-wide count that took from or to zero.
func (c *counts) resync() {
	b := c.n.kv.Load()
	if b == nil {
		return
	}
	c.Writing.Lock()
	defer c.Writing.Unlock()
	all := c.TakeAll()
	want := make(map[string]map[string]share, len(all))
	for k, n := range all {
		want[key(k.App, k.Name)] = map[string]share{"": {n: n}}
	}
	ctx, cancel := context.WithTimeout(c.n.ctx, c.n.period())
	defer cancel()
	moved, err := setShares(ctx, b.counts, c.n.node, want)
	if err != nil {
		c.Dirty.Store(true)
	}
	for _, m := range moved {
		if app, name, ok := splitKey(m.key); ok && m.up {
			c.n.transition(pair{App: app, Name: name}, 0, 1)
		} else if ok {
			c.n.transition(pair{App: app, Name: name}, 1, 0)
		}
	}
}

// transition reports the change of a channel's cluster-wide count.
func (n *Node) transition(k pair, before, after int) {
	cluster.Report(n.cfg.Observer, k, before, after)
}

// FlushCounts writes this node's pending count changes now (reporting their
// transitions), as a stopping node does before its webhooks close.
func (n *Node) FlushCounts() { n.counts.flush() }

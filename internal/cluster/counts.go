package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one Redis hash per app, whose entries
// hold each node's subscriptions to a channel. Changes are gathered here and
// written every flushEvery (by tickLoop, which also writes them all again
// after an outage), so Subscribed never waits for Redis; reads add the
// changes not written yet.
type counts struct {
	r     *Redis
	dirty atomic.Bool // write every count again at the next flush

	// writing is held through a flush or a resync: one of them at a time,
	// so that a resync never writes a share a flush is still adding to.
	writing sync.Mutex
	mu      sync.Mutex   // guards local and pending, and nothing else
	local   map[pair]int // this node's subscriptions per channel
	pending map[pair]int // changes not yet written to Redis
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair struct{ app, name string }

func newCounts(r *Redis) counts {
	return counts{r: r, local: make(map[pair]int), pending: make(map[pair]int)}
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
	var v string
	err := c.r.call(ctx, func(ctx context.Context) (err error) {
		v, err = c.r.rdb.HGet(ctx, c.r.channelsKey(app), channel).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return c.of(false, k), nil
	}
	if err != nil {
		return 0, err
	}
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total() + c.of(true, k), nil
}

// Channels implements hub.Counts.
func (c *counts) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	var all map[string]string
	err := c.r.call(ctx, func(ctx context.Context) (err error) {
		all, err = c.r.rdb.HGetAll(ctx, c.r.channelsKey(app)).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return c.withPrefix(false, app, prefix), nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]int)
	for name, v := range all {
		var e entry
		if strings.HasPrefix(name, prefix) && json.Unmarshal([]byte(v), &e) == nil {
			out[name] = e.total()
		}
	}
	for name, d := range c.withPrefix(true, app, prefix) {
		out[name] += d
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

// flush writes the changes gathered since the last flush; they are kept for
// the next one when Redis cannot take them, and all counts are written
// again when Redis may have taken them after all.
func (c *counts) flush() {
	c.writing.Lock()
	defer c.writing.Unlock()
	c.mu.Lock()
	pending := c.pending
	c.pending = make(map[pair]int)
	c.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	keys := make([]pair, 0, len(pending))
	var cmds []*redis.Cmd
	ctx, cancel := context.WithTimeout(c.r.ctx, c.r.cfg.SlowReply)
	defer cancel()
	err := c.r.call(ctx, func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k, d := range pending {
				keys = append(keys, k)
				cmds = append(cmds, addScript.Eval(ctx, p, []string{c.r.channelsKey(k.app)}, k.name, c.r.node, d, "", 0))
			}
			return nil
		})
		return err
	})
	switch {
	case errors.Is(err, errDown):
		c.mu.Lock()
		for k, d := range pending {
			addTo(c.pending, k, d)
		}
		c.mu.Unlock()
	case err != nil:
		c.dirty.Store(true)
		c.report(keys, cmds) // the scripts that ran before the error
	default:
		c.report(keys, cmds)
	}
}

// resync writes this node's count of every channel outright, and drops its
// share of channels it no longer has subscribers on.
func (c *counts) resync() {
	c.writing.Lock()
	defer c.writing.Unlock()
	c.mu.Lock()
	byApp := make(map[string][]any)
	for k, n := range c.local {
		byApp[k.app] = append(byApp[k.app], k.name, n, "")
	}
	c.pending = make(map[pair]int)
	c.dirty.Store(false)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.r.ctx, c.r.period())
	defer cancel()
	cmds := make(map[string]*redis.Cmd)
	err := c.r.call(ctx, func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, app := range c.r.cfg.Apps {
				cmds[app] = syncScript.Eval(ctx, p, []string{c.r.channelsKey(app)}, append([]any{c.r.node}, byApp[app]...)...)
			}
			return nil
		})
		return err
	})
	if err != nil {
		c.dirty.Store(true)
	}
	for app, cmd := range cmds {
		c.reportSync(app, cmd)
	}
}

// reportSync tells the observer of the channels whose cluster-wide count a
// resync took from or to zero (see syncScript).
func (c *counts) reportSync(app string, cmd *redis.Cmd) {
	res, err := cmd.Slice()
	if err != nil || len(res) != 2 {
		return
	}
	for i, before := range []int{0, 1} {
		names, _ := res[i].([]any)
		for _, n := range names {
			if name, ok := n.(string); ok {
				c.r.transition(pair{app, name}, before, 1-before)
			}
		}
	}
}

// report tells the observer of the channels whose cluster-wide count a
// flush took from or to zero: the script saw the totals around the change,
// so exactly one node reports each transition.
func (c *counts) report(keys []pair, cmds []*redis.Cmd) {
	for i, cmd := range cmds {
		if before, after, full, err := totals(cmd); err == nil && !full {
			c.r.transition(keys[i], before, after)
		}
	}
}

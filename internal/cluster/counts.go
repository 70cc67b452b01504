package cluster

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one Redis hash per app, whose entries
// hold each node's subscriptions to a channel. Changes are gathered here and
// written every flushEvery, so Subscribed never waits for Redis; reads add
// the changes not written yet. Both maps are guarded by Redis.shares.
type counts struct {
	r       *Redis
	local   map[pair]int // this node's subscriptions per channel
	pending map[pair]int // changes not yet written to Redis
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair struct{ app, name string }

func newCounts(r *Redis) counts {
	return counts{r: r, local: make(map[pair]int), pending: make(map[pair]int)}
}

func (r *Redis) channelsKey(app string) string { return r.key("channels", app) }

// Subscribed implements hub.Counts: the change is written within a flush.
func (c *counts) Subscribed(app, channel string, delta int) {
	k := pair{app, channel}
	c.r.withShares(func() {
		if c.local[k] += delta; c.local[k] <= 0 {
			delete(c.local, k)
		}
		addTo(c.pending, k, delta)
	})
}

// addTo adds delta to m[k], dropping the entry when it comes to zero.
func addTo(m map[pair]int, k pair, delta int) {
	if m[k] += delta; m[k] == 0 {
		delete(m, k)
	}
}

// Count implements hub.Counts.
func (c *counts) Count(app, channel string) int {
	k := pair{app, channel}
	var v string
	if !c.r.call(func(ctx context.Context) (err error) {
		v, err = c.r.rdb.HGet(ctx, c.r.channelsKey(app), channel).Result()
		return err
	}) {
		return c.of(c.local, k)
	}
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total() + c.of(c.pending, k)
}

// Channels implements hub.Counts.
func (c *counts) Channels(app, prefix string) map[string]int {
	var all map[string]string
	if !c.r.call(func(ctx context.Context) (err error) {
		all, err = c.r.rdb.HGetAll(ctx, c.r.channelsKey(app)).Result()
		return err
	}) {
		return c.withPrefix(c.local, app, prefix)
	}
	out := make(map[string]int)
	for name, v := range all {
		var e entry
		if strings.HasPrefix(name, prefix) && json.Unmarshal([]byte(v), &e) == nil {
			out[name] = e.total()
		}
	}
	for name, d := range c.withPrefix(c.pending, app, prefix) {
		out[name] += d
	}
	return out
}

// of reads m[k] under Redis.shares.
func (c *counts) of(m map[pair]int, k pair) (n int) {
	c.r.withShares(func() { n = m[k] })
	return n
}

// withPrefix copies, under Redis.shares, the entries of m for the channels
// of app that start with prefix.
func (c *counts) withPrefix(m map[pair]int, app, prefix string) map[string]int {
	out := make(map[string]int)
	c.r.withShares(func() {
		for k, n := range m {
			if k.app == app && strings.HasPrefix(k.name, prefix) {
				out[k.name] = n
			}
		}
	})
	return out
}

// flush writes the changes gathered since the last flush; they are kept for
// the next one when Redis cannot take them.
func (c *counts) flush() {
	var pending map[pair]int
	c.r.withShares(func() { pending, c.pending = c.pending, make(map[pair]int) })
	if len(pending) == 0 {
		return
	}
	keys := make([]pair, 0, len(pending))
	var cmds []*redis.Cmd
	ok := c.r.call(func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k, d := range pending {
				keys = append(keys, k)
				cmds = append(cmds, addScript.Eval(ctx, p, []string{c.r.channelsKey(k.app)}, k.name, c.r.node, d, "", 0))
			}
			return nil
		})
		return err
	})
	if ok {
		c.report(keys, cmds)
	} else {
		c.r.withShares(func() {
			for k, d := range pending {
				addTo(c.pending, k, d)
			}
		})
	}
}

// report tells the observer of the channels whose cluster-wide count a
// flush took from or to zero: the script saw the totals around the change,
// so exactly one node reports each transition.
func (c *counts) report(keys []pair, cmds []*redis.Cmd) {
	for i, cmd := range cmds {
		totals, err := cmd.Int64Slice()
		if err == nil && len(totals) == 2 {
			c.r.transition(keys[i], totals[0], totals[1])
		}
	}
}

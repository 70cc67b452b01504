package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one Redis hash per app, whose entries
// hold each node's subscriptions to a channel. Changes are gathered here and
// written every flushEvery (by tickLoop, which also writes them all again
// after an outage), so Subscribed never waits for Redis; reads add the
// changes not written yet.
type counts struct {
	r *Redis
	cluster.Book
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair = cluster.Key

func newCounts(r *Redis) counts {
	return counts{r: r}
}

// Count implements hub.Counts.
func (c *counts) Count(ctx context.Context, app, channel string) (int, error) {
	k := pair{App: app, Name: channel}
	var v string
	err := c.r.call(ctx, func(ctx context.Context) (err error) {
		v, err = c.r.rdb.HGet(ctx, c.r.channelsKey(app), channel).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return c.Of(false, k), nil
	}
	if err != nil {
		return 0, err
	}
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total() + c.Of(true, k), nil
}

// Channels implements hub.Counts.
func (c *counts) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	var all map[string]string
	err := c.r.call(ctx, func(ctx context.Context) (err error) {
		all, err = c.r.rdb.HGetAll(ctx, c.r.channelsKey(app)).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return c.WithPrefix(false, app, prefix), nil
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
	for name, d := range c.WithPrefix(true, app, prefix) {
		out[name] += d
	}
	return out, nil
}

// flush writes the changes gathered since the last flush; they are kept for
// the next one when Redis cannot take them, and all counts are written
// again when Redis may have taken them after all.
func (c *counts) flush() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	pending := c.TakePending()
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
				cmds = append(cmds, addScript.Eval(ctx, p, []string{c.r.channelsKey(k.App)}, k.Name, c.r.node, d, "", 0))
			}
			return nil
		})
		return err
	})
	switch {
	case errors.Is(err, errDown):
		c.Keep(pending)
	case err != nil:
		c.Dirty.Store(true)
		c.report(keys, cmds) // the scripts that ran before the error
	default:
		c.report(keys, cmds)
	}
}

// resync writes this node's count of every channel outright, and drops its
// share of channels it no longer has subscribers on.
func (c *counts) resync() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	byApp := make(map[string][]any)
	for k, n := range c.TakeAll() {
		byApp[k.App] = append(byApp[k.App], k.Name, n, "")
	}
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
		c.Dirty.Store(true)
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
				c.r.transition(pair{App: app, Name: name}, before, 1-before)
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

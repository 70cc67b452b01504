package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/clusterkit/tally"
	"github.com/roostproject/roost/internal/hub"
)

// counts is the cluster's hub.Counts: one Redis hash per app, whose entries
// hold each node's subscriptions to a channel. Changes are gathered here and
// written every flushEvery (by tickLoop, which also writes them all again
// after an outage), so Subscribed never waits for Redis; reads add the
// changes not written yet.
type counts struct {
	r *Redis
	tally.Book
	// batch is the changes sent to Redis and not answered yet, and batchID
	// its id, unique to this process (see addScript); both guarded by
	// Book.Writing.
	batch   map[pair]int
	batchID uint64
	// syncing is the resync sent and not answered yet, per app (see
	// resync); guarded by Book.Writing.
	syncing map[string][]any
}

var _ hub.Counts = (*counts)(nil)

// pair names one channel of one app.
type pair = tally.Key

func newCounts(r *Redis) counts {
	return counts{r: r, batchID: uint64(time.Now().UnixNano())}
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

// flush writes the batch Redis has not confirmed, if there is one, and
// then the changes gathered since the last flush as a new batch; not while
// a resync waits to be sent again (tickLoop sends it first).
func (c *counts) flush() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	if c.syncing != nil || len(c.batch) > 0 && !c.send() {
		return
	}
	c.batch, c.batchID = c.TakePending(), c.batchID+1
	if len(c.batch) > 0 {
		c.send()
	}
}

// send writes c.batch, each change once (see addScript), and reports the
// transitions of the changes Redis answers. The others stay in c.batch, to
// be sent again under the same id: Redis may have made them without its
// answer arriving (a reply lost to a timeout, a stalled Redis that runs
// them when it resumes), and their transitions are known only from its
// receipts. It reports whether the whole batch is written.
func (c *counts) send() bool {
	keys := make([]pair, 0, len(c.batch))
	var cmds []*redis.Cmd
	id := strconv.FormatUint(c.batchID, 10)
	ctx, cancel := context.WithTimeout(c.r.ctx, c.r.cfg.SlowReply)
	defer cancel()
	err := c.r.call(ctx, func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k, d := range c.batch {
				keys = append(keys, k)
				ks := []string{c.r.channelsKey(k.App), c.r.receiptsKey(k.App)}
				cmds = append(cmds, addScript.Eval(ctx, p, ks, k.Name, c.r.node, d, "", 0, id))
			}
			return nil
		})
		return err
	})
	if err != nil && !errors.Is(err, errDown) {
		c.Dirty.Store(true)
	}
	c.report(keys, cmds)
	return len(c.batch) == 0
}

// resync writes this node's count of every channel outright, and drops its
// share of channels it no longer has subscribers on. The batch Redis has
// not answered goes first, so that its transitions are reported once; a
// resync Redis does not answer is sent again as it was, under its id, as a
// batch is, before any later change.
func (c *counts) resync() {
	c.Writing.Lock()
	defer c.Writing.Unlock()
	if len(c.batch) > 0 && !c.send() {
		return
	}
	if c.syncing == nil {
		c.syncing, c.batchID = c.shares(), c.batchID+1
	}
	c.sendSync()
}

// shares returns, per app, syncScript's arguments for this node's counts.
func (c *counts) shares() map[string][]any {
	byApp := make(map[string][]any, len(c.r.cfg.Apps))
	for _, app := range c.r.cfg.Apps {
		byApp[app] = []any{c.r.node}
	}
	for k, n := range c.TakeAll() {
		if args, ok := byApp[k.App]; ok {
			byApp[k.App] = append(args, k.Name, n, "")
		}
	}
	return byApp
}

// sendSync writes c.syncing and reports what Redis answers; the apps it
// does not answer stay for the next resync.
func (c *counts) sendSync() {
	id := strconv.FormatUint(c.batchID, 10)
	ctx, cancel := context.WithTimeout(c.r.ctx, c.r.period())
	defer cancel()
	cmds := make(map[string]*redis.Cmd)
	err := c.r.call(ctx, func(ctx context.Context) error {
		_, err := c.r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for app, args := range c.syncing {
				ks := []string{c.r.channelsKey(app), c.r.receiptsKey(app)}
				cmds[app] = syncScript.Eval(ctx, p, ks, append(args[:len(args):len(args)], id)...)
			}
			return nil
		})
		return err
	})
	if err != nil {
		c.Dirty.Store(true)
	}
	for app, cmd := range cmds {
		if c.reportSync(app, cmd) {
			delete(c.syncing, app)
		}
	}
	if len(c.syncing) == 0 {
		c.syncing = nil
	}
}

// reportSync tells the observer of the channels whose cluster-wide count a
// resync took from or to zero (see syncScript), and reports whether Redis
// answered.
func (c *counts) reportSync(app string, cmd *redis.Cmd) bool {
	res, err := cmd.Slice()
	if err != nil || len(res) != 2 {
		return false
	}
	for i, before := range []int{0, 1} {
		names, _ := res[i].([]any)
		for _, n := range names {
			if name, ok := n.(string); ok {
				c.r.transition(pair{App: app, Name: name}, before, 1-before)
			}
		}
	}
	return true
}

// report tells the observer of the channels whose cluster-wide count a
// flush took from or to zero: the script saw the totals around the change,
// so exactly one node reports each transition.
func (c *counts) report(keys []pair, cmds []*redis.Cmd) {
	for i, cmd := range cmds {
		if before, after, full, err := totals(cmd); err == nil && !full {
			c.r.transition(keys[i], before, after)
			delete(c.batch, keys[i])
		}
	}
}

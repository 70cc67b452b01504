package cluster

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// entry is the JSON of one hash entry: each node's share and, for presence,
// the member's user_info.
type entry struct {
	N map[string]int `json:"n"`
	I string         `json:"i,omitempty"`
}

func (e entry) total() int {
	t := 0
	for _, n := range e.N {
		t += n
	}
	return t
}

func (r *Redis) presenceKey(app, channel string) string { return r.key("presence", app, channel) }
func (r *Redis) usersKey(app string) string             { return r.key("users", app) }
func (r *Redis) channelsKey(app string) string          { return r.key("channels", app) }

// add runs addScript; before/after are the entry's totals around the change.
func (r *Redis) add(ctx context.Context, key, field string, delta int, info string, max int) (before, after int, full bool, err error) {
	res, err := addScript.Run(ctx, r.rdb, []string{key}, field, r.node, delta, info, max).Result()
	if err != nil {
		return 0, 0, false, err
	}
	pair, ok := res.([]any)
	if !ok || len(pair) != 2 {
		return 0, 0, true, nil
	}
	b, _ := pair[0].(int64)
	a, _ := pair[1].(int64)
	return int(b), int(a), false, nil
}

// Join implements hub.Cluster.
func (r *Redis) Join(app, channel, user, info string, max int, local bool) (bool, error) {
	r.mirror.presenceAdd(pair{app, channel}, user, info, 1)
	var first, full bool
	ok := r.call(func(ctx context.Context) error {
		if err := r.rdb.SAdd(ctx, r.key("node-presence", r.node), app+":"+channel).Err(); err != nil {
			return err
		}
		before, _, f, err := r.add(ctx, r.presenceKey(app, channel), user, 1, info, max)
		first, full = before == 0, f
		return err
	})
	switch {
	case !ok:
		return local, nil
	case full:
		r.mirror.presenceAdd(pair{app, channel}, user, info, -1)
		return false, hub.ErrChannelFull
	}
	return first, nil
}

// Leave implements hub.Cluster.
func (r *Redis) Leave(app, channel, user string, local bool) bool {
	r.mirror.presenceAdd(pair{app, channel}, user, "", -1)
	last := false
	ok := r.call(func(ctx context.Context) error {
		before, after, _, err := r.add(ctx, r.presenceKey(app, channel), user, -1, "", 0)
		last = before > 0 && after == 0
		return err
	})
	if !ok {
		return local
	}
	return last
}

// Members implements hub.Cluster.
func (r *Redis) Members(app, channel string, local []hub.Member) []hub.Member {
	var all map[string]string
	ok := r.call(func(ctx context.Context) (err error) {
		all, err = r.rdb.HGetAll(ctx, r.presenceKey(app, channel)).Result()
		return err
	})
	if !ok {
		return local
	}
	out := make([]hub.Member, 0, len(all))
	for id, v := range all {
		var e entry
		if json.Unmarshal([]byte(v), &e) == nil && e.total() > 0 {
			out = append(out, hub.Member{ID: id, Info: e.I})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SignIn implements hub.Cluster.
func (r *Redis) SignIn(app, user string, local bool) bool {
	r.mirror.userAdd(app, user, 1)
	first := false
	if !r.call(func(ctx context.Context) error {
		before, _, _, err := r.add(ctx, r.usersKey(app), user, 1, "", 0)
		first = before == 0
		return err
	}) {
		return local
	}
	return first
}

// SignOut implements hub.Cluster.
func (r *Redis) SignOut(app, user string, local bool) bool {
	r.mirror.userAdd(app, user, -1)
	last := false
	if !r.call(func(ctx context.Context) error {
		before, after, _, err := r.add(ctx, r.usersKey(app), user, -1, "", 0)
		last = before > 0 && after == 0
		return err
	}) {
		return local
	}
	return last
}

// Online implements hub.Cluster.
func (r *Redis) Online(app string, ids []string, local []string) []string {
	if len(ids) == 0 {
		return nil
	}
	var vals []any
	if !r.call(func(ctx context.Context) (err error) {
		vals, err = r.rdb.HMGet(ctx, r.usersKey(app), ids...).Result()
		return err
	}) {
		return local
	}
	var out []string
	for i, v := range vals {
		if v != nil {
			out = append(out, ids[i])
		}
	}
	return out
}

// Subscribed implements hub.Cluster: the change is flushed within a tick.
func (r *Redis) Subscribed(app, channel string, delta int) {
	r.mirror.subscribed(pair{app, channel}, delta)
}

// Count implements hub.Cluster.
func (r *Redis) Count(app, channel string, local int) int {
	var v string
	if !r.call(func(ctx context.Context) (err error) {
		v, err = r.rdb.HGet(ctx, r.channelsKey(app), channel).Result()
		return err
	}) {
		return local
	}
	var e entry
	json.Unmarshal([]byte(v), &e)
	return e.total() + r.mirror.pendingOf(pair{app, channel})
}

// Channels implements hub.Cluster.
func (r *Redis) Channels(app, prefix string, local map[string]int) map[string]int {
	var all map[string]string
	if !r.call(func(ctx context.Context) (err error) {
		all, err = r.rdb.HGetAll(ctx, r.channelsKey(app)).Result()
		return err
	}) {
		return local
	}
	out := make(map[string]int)
	for name, v := range all {
		var e entry
		if strings.HasPrefix(name, prefix) && json.Unmarshal([]byte(v), &e) == nil {
			out[name] = e.total()
		}
	}
	for k, d := range r.mirror.pendingWithPrefix(app, prefix) {
		out[k] += d
	}
	return out
}

// CachePut implements hub.Cluster: the write is queued behind the publish.
func (r *Redis) CachePut(m *hub.Message) {
	kept := *m
	kept.Except = ""
	r.enqueue(outbound{msg: &kept, cache: true})
}

// CacheGet implements hub.Cluster.
func (r *Redis) CacheGet(app, channel string) (hub.Message, time.Duration, bool) {
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	if !r.call(func(ctx context.Context) error {
		_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, r.key("cache", app, channel))
			ttl = p.PTTL(ctx, r.key("cache", app, channel))
			return nil
		})
		return err
	}) || get.Err() != nil {
		return hub.Message{}, 0, false
	}
	var m hub.Message
	if json.Unmarshal([]byte(get.Val()), &m) != nil || ttl.Val() <= 0 {
		return hub.Message{}, 0, false
	}
	return m, ttl.Val(), true
}

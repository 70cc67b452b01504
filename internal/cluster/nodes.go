package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// flushEvery is how often subscription-count changes are written to Redis.
const flushEvery = 100 * time.Millisecond

// tickLoop flushes counts, refreshes the heartbeat and cleans up after dead
// nodes.
func (r *Redis) tickLoop() {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	beat := time.NewTicker(r.cfg.NodeTTL / 3)
	defer beat.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-flush.C:
			r.counts.flush()
		case <-beat.C:
			r.heartbeat()
			r.reapDead()
		}
	}
}

// heartbeat refreshes this node's key. When the key was missing (Redis
// restarted, or the node was taken for dead) or Redis was unreachable, the
// node writes its shares again.
func (r *Redis) heartbeat() {
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
	defer cancel()
	_, err := r.rdb.SetArgs(ctx, r.key("node", r.node), "1", redis.SetArgs{TTL: r.cfg.NodeTTL, Get: true}).Result()
	missing := err == redis.Nil
	if err != nil && !missing {
		r.setHealthy(false, err)
		return
	}
	wasHealthy := r.healthy.Load()
	if err := r.rdb.SAdd(ctx, r.key("nodes"), r.node).Err(); err != nil {
		r.setHealthy(false, err)
		return
	}
	r.setHealthy(true, nil)
	if missing || !wasHealthy {
		r.resync(ctx)
	}
}

// resync writes every share of this node outright.
func (r *Redis) resync(ctx context.Context) {
	r.shares.Lock()
	defer r.shares.Unlock()
	members := 0
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		members = r.resyncPresence(ctx, p)
		r.users.local.Each(func(app, user string, n int) {
			setScript.Eval(ctx, p, []string{r.usersKey(app)}, user, r.node, n, "")
		})
		for k, n := range r.counts.local {
			setScript.Eval(ctx, p, []string{r.channelsKey(k.app)}, k.name, r.node, n, "")
		}
		return nil
	})
	if err != nil {
		r.setHealthy(false, err)
		return
	}
	r.counts.pending = make(map[pair]int) // the counts written include them
	r.log.Info("cluster state written again", "presence_members", members, "channels", len(r.counts.local))
}

// resyncPresence queues this node's presence members on p and returns how
// many there are; r.shares is held.
func (r *Redis) resyncPresence(ctx context.Context, p redis.Pipeliner) int {
	n := 0
	channels := make(map[pair]bool)
	r.presence.local.Each(func(app, channel string, m hub.Member, conns int) {
		if k := (pair{app, channel}); !channels[k] {
			channels[k] = true
			p.SAdd(ctx, r.key("node-presence", r.node), app+":"+channel)
		}
		setScript.Eval(ctx, p, []string{r.presenceKey(app, channel)}, m.ID, r.node, conns, m.Info)
		n++
	})
	return n
}

// reapDead cleans up after every node whose heartbeat has expired.
func (r *Redis) reapDead() {
	var nodes []string
	if !r.call(func(ctx context.Context) (err error) {
		nodes, err = r.rdb.SMembers(ctx, r.key("nodes")).Result()
		return err
	}) {
		return
	}
	for _, n := range nodes {
		if n != r.node {
			r.reapIfDead(n)
		}
	}
}

func (r *Redis) reapIfDead(node string) {
	r.call(func(ctx context.Context) error {
		alive, err := r.rdb.Exists(ctx, r.key("node", node)).Result()
		if err != nil || alive > 0 {
			return err
		}
		got, err := r.rdb.SetNX(ctx, r.key("reap", node), r.node, time.Minute).Result()
		if err != nil || !got {
			return err
		}
		r.log.Warn("node stopped heartbeating; removing its members", "node", node)
		if err := r.reap(ctx, node); err != nil {
			return err
		}
		return r.rdb.SRem(ctx, r.key("nodes"), node).Err()
	})
}

// reap removes a dead node's shares, announcing members and users that
// vanish with it.
func (r *Redis) reap(ctx context.Context, node string) error {
	chans, err := r.rdb.SMembers(ctx, r.key("node-presence", node)).Result()
	if err != nil {
		return err
	}
	for _, ac := range chans {
		app, channel, _ := strings.Cut(ac, ":")
		gone, err := reapScript.Run(ctx, r.rdb, []string{r.presenceKey(app, channel)}, node).StringSlice()
		if err != nil {
			return err
		}
		for _, u := range gone {
			r.Publish(&hub.Message{App: app, Channel: channel, Event: "pusher_internal:member_removed", Data: userIDJSON(u)})
			r.cfg.Observer.MemberRemoved(app, channel, u)
		}
	}
	for _, app := range r.cfg.Apps {
		if err := r.reapApp(ctx, app, node); err != nil {
			return err
		}
	}
	return r.rdb.Del(ctx, r.key("node-presence", node)).Err()
}

func (r *Redis) reapApp(ctx context.Context, app, node string) error {
	vacated, err := reapScript.Run(ctx, r.rdb, []string{r.channelsKey(app)}, node).StringSlice()
	if err != nil {
		return err
	}
	for _, channel := range vacated {
		r.cfg.Observer.ChannelVacated(app, channel)
	}
	gone, err := reapScript.Run(ctx, r.rdb, []string{r.usersKey(app)}, node).StringSlice()
	for _, u := range gone {
		data, _ := json.Marshal(map[string]any{"events": []map[string]any{{"name": "offline", "user_ids": []string{u}}}})
		r.Publish(&hub.Message{App: app, Channel: hub.WatchlistPrefix + u, Event: "pusher_internal:watchlist_events", Data: string(data)})
	}
	return err
}

func userIDJSON(id string) string {
	b, _ := json.Marshal(map[string]string{"user_id": id})
	return string(b)
}

package redisstore

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/hub"
)

// resync writes this node's presence members and signed-in users again,
// exactly as they are (see syncScript), in order with the changes on
// opsLoop, and takes a new epoch; tickLoop writes the counts again. It
// waits for the write, not holding anything a loop needs.
func (r *Redis) resync() error {
	ctx, cancel := context.WithTimeout(r.ctx, r.period())
	defer cancel()
	r.counts.Dirty.Store(true)
	_, err := r.submit(&op{ctx: ctx, resync: func() error { return r.writeShares(ctx) }})
	if err == nil {
		r.reconcileSoon()
	}
	return err
}

// writeShares is the resync itself, on opsLoop.
func (r *Redis) writeShares(ctx context.Context) error {
	r.link.Dirty.Store(false)
	err := r.writeAll(ctx)
	if err != nil {
		r.link.Dirty.Store(true)
		return err
	}
	r.epoch.Add(1)
	return nil
}

func (r *Redis) writeAll(ctx context.Context) error {
	listed, err := r.rdb.SMembers(ctx, r.nodeKey("node-presence", r.node)).Result()
	if err != nil {
		return err
	}
	members := make(map[pair][]any)
	r.presence.local.Each(func(app, channel string, m hub.Member, conns int) {
		k := pair{App: app, Name: channel}
		members[k] = append(members[k], m.ID, conns, m.Info)
	})
	signedIn := make(map[string][]any)
	r.users.local.Each(func(app, user string, conns int) {
		signedIn[app] = append(signedIn[app], user, conns, "")
	})
	_, err = r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, ac := range listed {
			app, channel, _ := strings.Cut(ac, ":")
			if _, ok := members[pair{App: app, Name: channel}]; !ok {
				syncScript.Eval(ctx, p, []string{r.presenceKey(app, channel)}, r.node)
			}
		}
		p.Del(ctx, r.nodeKey("node-presence", r.node))
		for k, shares := range members {
			syncScript.Eval(ctx, p, []string{r.presenceKey(k.App, k.Name)}, append([]any{r.node}, shares...)...)
			p.SAdd(ctx, r.nodeKey("node-presence", r.node), k.App+":"+k.Name)
		}
		for _, app := range r.cfg.Apps {
			syncScript.Eval(ctx, p, []string{r.usersKey(app)}, append([]any{r.node}, signedIn[app]...)...)
		}
		return nil
	})
	if err == nil {
		r.log.Info("cluster state written again", "presence_channels", len(members), "node", r.node)
	}
	return err
}

package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/cluster"
)

// The node records: a heartbeat key per node (its epoch, with NodeTTL),
// the set of listed nodes, a reap lock per dead node and each node's list
// of presence channels. The set and the lists expire too, RecordTTL after
// the last heartbeat that refreshes them: a cluster that stops whole
// leaves no node record behind for good. Each beat also refreshes the
// expiry of the apps' hashes of counts and users (expiry.go).

// Beat implements cluster.Heartbeats.
func (r *Redis) Beat(ctx context.Context, epoch string) (missing bool, err error) {
	_, err = r.rdb.SetArgs(ctx, r.nodeKey("node", r.node), epoch, redis.SetArgs{TTL: r.cfg.NodeTTL, Get: true}).Result()
	missing = errors.Is(err, redis.Nil)
	if err != nil && !missing {
		return false, err
	}
	err = r.pipelined(ctx, func(ctx context.Context, p redis.Pipeliner) {
		p.SAdd(ctx, r.nodeKey("nodes"), r.node)
		p.Expire(ctx, r.nodeKey("nodes"), cluster.RecordTTL)
		p.Expire(ctx, r.nodeKey("node-presence", r.node), cluster.RecordTTL)
		for _, app := range r.cfg.Apps {
			r.expireApp(ctx, p, app)
		}
	})
	return missing, err
}

// Leave implements cluster.Heartbeats.
func (r *Redis) Leave(ctx context.Context) { r.rdb.Del(ctx, r.nodeKey("node", r.node)) }

// Nodes implements cluster.Heartbeats.
func (r *Redis) Nodes(ctx context.Context) (alive map[string]string, listed []string, err error) {
	listed, err = get(r, ctx, func(ctx context.Context) ([]string, error) { return r.rdb.SMembers(ctx, r.nodeKey("nodes")).Result() })
	if err != nil || len(listed) == 0 {
		return nil, nil, err
	}
	if alive, err = perNode(r, ctx, "node", listed, func(epoch string) string { return epoch }); err != nil {
		return nil, nil, err
	}
	return alive, listed, nil
}

// Lock implements cluster.Heartbeats.
func (r *Redis) Lock(ctx context.Context, node string, ttl time.Duration) bool {
	got, err := get(r, ctx, func(ctx context.Context) (bool, error) {
		return r.rdb.SetNX(ctx, r.nodeKey("reap", node), r.node, ttl).Result()
	})
	return err == nil && got
}

// Alive implements cluster.Heartbeats.
func (r *Redis) Alive(ctx context.Context, node string) (bool, error) {
	n, err := get(r, ctx, func(ctx context.Context) (int64, error) { return r.rdb.Exists(ctx, r.nodeKey("node", node)).Result() })
	return n > 0, err
}

// Forget implements cluster.Heartbeats.
func (r *Redis) Forget(ctx context.Context, node string, reaped bool) {
	r.pipeline(ctx, func(ctx context.Context, p redis.Pipeliner) {
		if reaped {
			p.SRem(ctx, r.nodeKey("nodes"), node)
		}
		p.Del(ctx, r.nodeKey("reap", node))
	})
}

// Reap implements cluster.Heartbeats: counts first, then presence (through
// the node's list of its presence channels), then users.
func (r *Redis) Reap(ctx context.Context, node string) (gone cluster.Reaped, err error) {
	err = r.call(ctx, func(ctx context.Context) error { return r.reap(ctx, node, &gone) })
	return gone, err
}

func (r *Redis) reap(ctx context.Context, node string, gone *cluster.Reaped) error {
	for _, app := range r.cfg.Apps {
		err := r.unshare(ctx, r.channelsKey(app), node, func(channel string) {
			gone.Vacated = append(gone.Vacated, cluster.Key{App: app, Name: channel})
		})
		if err != nil {
			return err
		}
	}
	chans, err := r.rdb.SMembers(ctx, r.nodeKey("node-presence", node)).Result()
	if err != nil {
		return err
	}
	for _, ac := range chans {
		k := pairKey(ac)
		err := r.unshare(ctx, r.presenceKey(k.App, k.Name), node, func(u string) {
			gone.Removed = append(gone.Removed, cluster.Departure{App: k.App, Channel: k.Name, User: u})
		})
		if err != nil {
			return err
		}
	}
	for _, app := range r.cfg.Apps {
		err := r.unshare(ctx, r.usersKey(app), node, func(u string) {
			gone.Offline = append(gone.Offline, cluster.Key{App: app, Name: u})
		})
		if err != nil {
			return err
		}
	}
	return r.rdb.Del(ctx, r.nodeKey("node-presence", node)).Err()
}

// unshare removes node's share from every field of the hash at key
// (syncScript with no shares) and calls gone with each field left with no
// share at all.
func (r *Redis) unshare(ctx context.Context, key, node string, gone func(field string)) error {
	return eachSynced(syncScript.Run(ctx, r.rdb, []string{key}, node), func(field string, before int) {
		if before == 1 {
			gone(field)
		}
	})
}

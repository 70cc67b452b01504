package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"sort"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// presence is the cluster's hub.Presence: one Redis hash per channel, whose
// entries hold each node's connections of a member. Its local part is this
// node's own members: the answer while Redis is away, and what the node
// writes again when Redis comes back. Joins and leaves go through opsLoop.
type presence struct {
	r     *Redis
	local *hub.MemoryPresence
}

var _ hub.Presence = (*presence)(nil)

// Join implements hub.Presence. The channel's limit applies to this node's
// members first, then to the cluster's.
func (p *presence) Join(ctx context.Context, app, channel string, m hub.Member, max int) (bool, error) {
	return p.r.submit(&op{ctx: ctx, Change: cluster.Change{Kind: cluster.Join, App: app, Channel: channel, Member: m, Max: max}})
}

// Leave implements hub.Presence.
func (p *presence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.r.submit(&op{ctx: ctx, Change: cluster.Change{Kind: cluster.Leave, App: app, Channel: channel, Member: hub.Member{ID: user}}})
}

// Members implements hub.Presence.
func (p *presence) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	var all map[string]string
	err := p.r.call(ctx, func(ctx context.Context) (err error) {
		all, err = p.r.rdb.HGetAll(ctx, p.r.presenceKey(app, channel)).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return p.local.Members(ctx, app, channel)
	}
	if err != nil {
		return nil, err
	}
	out := make([]hub.Member, 0, len(all))
	for id, v := range all {
		var e entry
		if json.Unmarshal([]byte(v), &e) == nil && e.total() > 0 {
			out = append(out, hub.Member{ID: id, Info: e.I})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// announceDepartures announces the departures the node deferred (see
// package departures) that Redis confirms.
func (r *Redis) announceDepartures() {
	r.deferred.Announce(r.ctx, r.period(), cluster.Announcer{
		Member: func(ctx context.Context, g cluster.Departure) (member bool, err error) {
			err = r.call(ctx, func(ctx context.Context) (err error) {
				member, err = r.rdb.HExists(ctx, r.presenceKey(g.App, g.Channel), g.User).Result()
				return err
			})
			return member, err
		},
		Publish:  r.Publish,
		Observer: r.cfg.Observer,
	})
}

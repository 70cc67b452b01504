package cluster

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/roostproject/roost/internal/hub"
)

// presence is the cluster's hub.Presence: one Redis hash per channel, whose
// entries hold each node's connections of a member. Its local part is this
// node's own members: the answer while Redis is away, and what the node
// writes again when Redis comes back.
type presence struct {
	r     *Redis
	local *hub.MemoryPresence // guarded by r.shares as well, see Redis.shares
}

var _ hub.Presence = (*presence)(nil)

func (r *Redis) presenceKey(app, channel string) string { return r.key("presence", app, channel) }

// Join implements hub.Presence. The channel's limit applies to this node's
// members first, then to the cluster's.
func (p *presence) Join(app, channel string, m hub.Member, max int) (bool, error) {
	var local bool
	var err error
	p.r.withShares(func() { local, err = p.local.Join(app, channel, m, max) })
	if err != nil {
		return false, err
	}
	var first, full bool
	ok := p.r.call(func(ctx context.Context) error {
		if err := p.r.rdb.SAdd(ctx, p.r.key("node-presence", p.r.node), app+":"+channel).Err(); err != nil {
			return err
		}
		before, _, f, err := p.r.add(ctx, p.r.presenceKey(app, channel), m.ID, 1, m.Info, max)
		first, full = before == 0, f
		return err
	})
	switch {
	case !ok:
		return local, nil
	case full:
		p.r.withShares(func() { p.local.Leave(app, channel, m.ID) })
		return false, hub.ErrChannelFull
	}
	return first, nil
}

// Leave implements hub.Presence.
func (p *presence) Leave(app, channel, user string) bool {
	var local bool
	p.r.withShares(func() { local = p.local.Leave(app, channel, user) })
	last := false
	ok := p.r.call(func(ctx context.Context) error {
		before, after, _, err := p.r.add(ctx, p.r.presenceKey(app, channel), user, -1, "", 0)
		last = before > 0 && after == 0
		return err
	})
	if !ok {
		return local
	}
	return last
}

// Members implements hub.Presence.
func (p *presence) Members(app, channel string) []hub.Member {
	var all map[string]string
	ok := p.r.call(func(ctx context.Context) (err error) {
		all, err = p.r.rdb.HGetAll(ctx, p.r.presenceKey(app, channel)).Result()
		return err
	})
	if !ok {
		return p.local.Members(app, channel)
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

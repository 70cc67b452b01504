package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"

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
	return p.r.submit(&op{ctx: ctx, kind: opJoin, app: app, channel: channel, member: m, max: max})
}

// Leave implements hub.Presence.
func (p *presence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.r.submit(&op{ctx: ctx, kind: opLeave, app: app, channel: channel, member: hub.Member{ID: user}})
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

// deferred are the presence departures this node has not announced: they
// happened while Redis was away or soon after it came back, when the node
// cannot tell whether the user still has a connection on another node
// whose share is not written again yet. Once the node is settled, each one
// that the store confirms (the user is no member) is announced.
type deferred struct {
	mu   sync.Mutex
	gone map[departure]bool
}

type departure struct{ app, channel, user string }

func (d *deferred) add(app, channel, user string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gone == nil {
		d.gone = make(map[departure]bool)
	}
	d.gone[departure{app, channel, user}] = true
}

// take returns and forgets the deferred departures.
func (d *deferred) take() map[departure]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	gone := d.gone
	d.gone = nil
	return gone
}

// announce publishes member_removed for every deferred departure the store
// confirms; those it cannot check wait for the next time.
func (d *deferred) announce(r *Redis) {
	gone := d.take()
	if len(gone) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.period())
	defer cancel()
	for g := range gone {
		var member bool
		err := r.call(ctx, func(ctx context.Context) (err error) {
			member, err = r.rdb.HExists(ctx, r.presenceKey(g.app, g.channel), g.user).Result()
			return err
		})
		switch {
		case err != nil:
			d.add(g.app, g.channel, g.user)
		case !member:
			r.Publish(hub.MemberRemoved(g.app, g.channel, g.user))
			r.cfg.Observer.MemberRemoved(g.app, g.channel, g.user)
		}
	}
}

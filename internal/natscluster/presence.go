package natscluster

import (
	"context"
	"sort"
	"sync"

	"github.com/roostproject/roost/internal/hub"
)

// presence is the cluster's hub.Presence: one key per channel in the
// presence bucket, whose hash holds each member's connections per node. Its
// local part is this node's own members: the answer while NATS is away,
// and what the node writes again when NATS comes back.
type presence struct {
	n     *Node
	local *hub.MemoryPresence
}

var _ hub.Presence = (*presence)(nil)

// Join implements hub.Presence. The channel's limit applies to this node's
// members first, then to the cluster's, exactly: the check and the write
// are one compare-and-set of the channel's key.
func (p *presence) Join(ctx context.Context, app, channel string, m hub.Member, max int) (bool, error) {
	return p.n.apply(ctx, &change{kind: join, app: app, channel: channel, member: m, max: max})
}

// Leave implements hub.Presence.
func (p *presence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.n.apply(ctx, &change{kind: leave, app: app, channel: channel, member: hub.Member{ID: user}})
}

// Members implements hub.Presence.
func (p *presence) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	b := p.n.kv.Load()
	if b == nil || !p.n.link.healthy.Load() {
		return p.local.Members(ctx, app, channel)
	}
	h, _, err := read(ctx, b.presence, key(app, channel))
	if err != nil {
		p.n.link.suspect()
		return nil, err
	}
	out := make([]hub.Member, 0, len(h))
	for id, e := range h {
		if e.total() > 0 {
			out = append(out, hub.Member{ID: id, Info: e.I})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// deferred are the presence departures this node has not announced: they
// happened while NATS was away or soon after it came back, when the node
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

func (d *deferred) take() map[departure]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	gone := d.gone
	d.gone = nil
	return gone
}

// announce publishes member_removed for every deferred departure the store
// confirms; those it cannot check wait for the next time.
func (d *deferred) announce(n *Node) {
	gone := d.take()
	b := n.kv.Load()
	if len(gone) == 0 || b == nil {
		for g := range gone {
			d.add(g.app, g.channel, g.user)
		}
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.period())
	defer cancel()
	for g := range gone {
		h, _, err := read(ctx, b.presence, key(g.app, g.channel))
		switch {
		case err != nil:
			d.add(g.app, g.channel, g.user)
		case h[g.user] == nil:
			n.Publish(hub.MemberRemoved(g.app, g.channel, g.user))
			n.cfg.Observer.MemberRemoved(g.app, g.channel, g.user)
		}
	}
}

package natscluster

import (
	"context"
	"errors"
	"sort"

	"github.com/roostproject/roost/internal/clusterkit/departures"
	"github.com/roostproject/roost/internal/clusterkit/sharechange"
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
	c := &change{sharechange.Change{Kind: sharechange.Join, App: app, Channel: channel, Member: m, Max: max}}
	first, err := p.n.apply(ctx, c)
	c.Greet(p.n.cfg.Deliver)
	return first, err
}

// Leave implements hub.Presence.
func (p *presence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.n.apply(ctx, &change{sharechange.Change{Kind: sharechange.Leave, App: app, Channel: channel, Member: hub.Member{ID: user}}})
}

// Members implements hub.Presence.
func (p *presence) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	b := p.n.kv.Load()
	if b == nil || !p.n.link.Healthy.Load() {
		return p.local.Members(ctx, app, channel)
	}
	h, _, err := read(ctx, b.presence, key(app, channel))
	if err != nil {
		p.n.link.Suspect()
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

// announceDepartures announces the departures the node deferred (see
// package departures) that the presence bucket confirms.
func (n *Node) announceDepartures() {
	n.deferred.Announce(n.ctx, n.period(), departures.Backend{
		Member: func(ctx context.Context, g departures.Departure) (bool, error) {
			b := n.kv.Load()
			if b == nil {
				return false, errors.New("nats: buckets not open")
			}
			h, _, err := read(ctx, b.presence, key(g.App, g.Channel))
			return h[g.User] != nil, err
		},
		Publish:  n.Publish,
		Observer: n.cfg.Observer,
	})
}

package natsstore

import (
	"context"
	"errors"

	"github.com/roostproject/roost/internal/hub"
)

// resync writes this node's presence members and signed-in users again,
// exactly as they are, with every change held off meanwhile, and takes a
// new epoch; tickLoop writes the counts again. It runs on healthLoop.
func (n *Node) resync() error {
	b := n.kv.Load()
	if b == nil {
		return errors.New("nats: buckets not open")
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.period())
	defer cancel()
	n.counts.Dirty.Store(true)
	n.changes.Lock()
	defer n.changes.Unlock()
	n.link.Dirty.Store(false)
	if err := n.writeShares(ctx, b); err != nil {
		n.link.Dirty.Store(true)
		return err
	}
	n.epoch.Add(1)
	n.reconcileSoon()
	return nil
}

func (n *Node) writeShares(ctx context.Context, b *buckets) error {
	members := make(map[string]map[string]share)
	n.presence.local.Each(func(app, channel string, m hub.Member, conns int) {
		k := key(app, channel)
		if members[k] == nil {
			members[k] = make(map[string]share)
		}
		members[k][m.ID] = share{n: conns, info: m.Info}
	})
	signedIn := make(map[string]map[string]share)
	n.users.local.Each(func(app, user string, conns int) {
		signedIn[key(app, user)] = map[string]share{"": {n: conns}}
	})
	if _, err := setShares(ctx, b.presence, n.node, members); err != nil {
		return err
	}
	if _, err := setShares(ctx, b.users, n.node, signedIn); err != nil {
		return err
	}
	n.log.Info("cluster state written again", "presence_channels", len(members), "node", n.node)
	return nil
}

package natscluster

import (
	"context"
	"hash/fnv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/clusterkit/sharechange"
	"github.com/roostproject/roost/internal/hub"
)

// A presence join or leave, or a user sign-in or sign-out, changes this
// node's own share (presence.local, users.local) and then the bucket's copy,
// under the stripe lock of its key, so that two changes of one key leave
// the node in the order they were made. A resync takes every stripe at once
// (changes.Lock), so that it writes exactly the share after the changes
// before it.

// change is one change of this node's share.
type change struct{ sharechange.Change }

// apply makes c and reports whether the user's total across the cluster
// left zero (join, sign-in) or reached it (leave, sign-out).
func (n *Node) apply(ctx context.Context, c *change) (bool, error) {
	n.changes.RLock()
	defer n.changes.RUnlock()
	stripe := &n.stripes[c.stripe()%uint32(len(n.stripes))]
	stripe.Lock()
	defer stripe.Unlock()
	if err := c.ApplyLocal(n.presence.local, n.users.local); err != nil {
		return false, err
	}
	b := n.kv.Load()
	if b == nil || !n.link.Healthy.Load() {
		n.link.Dirty.Store(true)
		return c.LocalAnswer(&n.deferred), nil
	}
	kv, k, field, delta, info := n.target(b, c)
	before, after, full, err := changeShare(ctx, kv, &n.guesses, k, field, n.node, delta, info, c.Max)
	switch {
	case err != nil:
		return n.failed(c, err)
	case full:
		c.Undo()
		return false, hub.ErrChannelFull
	}
	return c.Answer(before, after, n.settled(n.period()), &n.deferred), nil
}

func (c *change) stripe() uint32 {
	h := fnv.New32a()
	h.Write([]byte(c.App + "\x00" + c.Channel + "\x00" + c.Member.ID))
	return h.Sum32()
}

// target returns the bucket, key and field c changes, by how much, and
// the info a new presence member is kept with.
func (n *Node) target(b *buckets, c *change) (kv jetstream.KeyValue, k, field string, delta int, info string) {
	switch c.Kind {
	case sharechange.Join:
		return b.presence, key(c.App, c.Channel), c.Member.ID, 1, c.Member.Info
	case sharechange.Leave:
		return b.presence, key(c.App, c.Channel), c.Member.ID, -1, ""
	default:
		return b.users, key(c.App, c.Member.ID), "", c.Delta(), ""
	}
}

// failed answers a change NATS did not carry out, or did not confirm:
// the node will write its shares again. If NATS is unreachable the local
// answer stands; if it is only slow, a join or sign-in is taken back and
// fails, a sign-out (whose connection is gone) stands without an
// announcement, and a leave of the member's last connection here is
// deferred as while NATS is unreachable: NATS may carry it out when it
// answers again, and the departure is announced once NATS confirms it.
func (n *Node) failed(c *change, err error) (bool, error) {
	n.link.Dirty.Store(true)
	n.link.Suspect()
	switch {
	case !n.nc.IsConnected() || c.Kind == sharechange.Leave:
		return c.LocalAnswer(&n.deferred), nil
	case c.Undo != nil:
		c.Undo()
		return false, err
	}
	return false, nil
}

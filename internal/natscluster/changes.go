package natscluster

import (
	"context"
	"hash/fnv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/hub"
)

// A presence join or leave, or a user sign-in or sign-out, changes this
// node's own share (presence.local, users.local) and then the bucket's copy,
// under the stripe lock of its key, so that two changes of one key leave
// the node in the order they were made. A resync takes every stripe at once
// (changes.Lock), so that it writes exactly the share after the changes
// before it.

// kind is what a change does.
type kind uint8

const (
	join kind = iota
	leave
	signIn
	signOut
)

// change is one change of this node's share.
type change struct {
	kind    kind
	app     string
	channel string
	member  hub.Member // the user (ID) and, to join, its info
	max     int

	local bool   // the answer from this node's share alone
	undo  func() // takes the local change back
}

// apply makes c and reports whether the user's total across the cluster
// left zero (join, sign-in) or reached it (leave, sign-out).
func (n *Node) apply(ctx context.Context, c *change) (bool, error) {
	n.changes.RLock()
	defer n.changes.RUnlock()
	stripe := &n.stripes[c.stripe()%uint32(len(n.stripes))]
	stripe.Lock()
	defer stripe.Unlock()
	if err := n.applyLocal(c); err != nil {
		return false, err
	}
	b := n.kv.Load()
	if b == nil || !n.link.Healthy.Load() {
		n.link.Dirty.Store(true)
		return n.localAnswer(c), nil
	}
	kv, k, field, delta, info := n.target(b, c)
	before, after, full, err := changeShare(ctx, kv, &n.guesses, k, field, n.node, delta, info, c.max)
	switch {
	case err != nil:
		return n.failed(c, err)
	case full:
		c.undo()
		return false, hub.ErrChannelFull
	case c.kind == join || c.kind == signIn:
		return before == 0, nil
	}
	gone := before > 0 && after == 0
	if gone && c.kind == leave && !n.settled(n.period()) {
		n.deferred.Add(c.app, c.channel, c.member.ID)
		gone = false
	}
	return gone, nil
}

func (c *change) stripe() uint32 {
	h := fnv.New32a()
	h.Write([]byte(c.app + "\x00" + c.channel + "\x00" + c.member.ID))
	return h.Sum32()
}

// target returns the bucket, key and field c changes, by how much, and
// the info a new presence member is kept with.
func (n *Node) target(b *buckets, c *change) (kv jetstream.KeyValue, k, field string, delta int, info string) {
	switch c.kind {
	case join:
		return b.presence, key(c.app, c.channel), c.member.ID, 1, c.member.Info
	case leave:
		return b.presence, key(c.app, c.channel), c.member.ID, -1, ""
	case signIn:
		return b.users, key(c.app, c.member.ID), "", 1, ""
	default:
		return b.users, key(c.app, c.member.ID), "", -1, ""
	}
}

// failed answers a change NATS did not carry out, or did not confirm:
// the node will write its shares again. If NATS is unreachable the local
// answer stands; if it is only slow, a join or sign-in is taken back and
// fails, and a leave or sign-out (whose connection is gone) stands without
// an announcement.
func (n *Node) failed(c *change, err error) (bool, error) {
	n.link.Dirty.Store(true)
	n.link.Suspect()
	switch {
	case !n.nc.IsConnected():
		return n.localAnswer(c), nil
	case c.undo != nil:
		c.undo()
		return false, err
	}
	return false, nil
}

// applyLocal makes c's change to this node's share; an error (the channel
// is full already on this node) is c's answer.
func (n *Node) applyLocal(c *change) error {
	ctx := context.Background()
	p, u, m := n.presence.local, n.users.local, c.member
	switch c.kind {
	case join:
		first, err := p.Join(ctx, c.app, c.channel, m, c.max)
		c.local, c.undo = first, func() { p.Leave(ctx, c.app, c.channel, m.ID) }
		return err
	case leave:
		c.local, _ = p.Leave(ctx, c.app, c.channel, m.ID)
	case signIn:
		c.local, _ = u.SignIn(ctx, c.app, m.ID)
		c.undo = func() { u.SignOut(ctx, c.app, m.ID) }
	case signOut:
		c.local, _ = u.SignOut(ctx, c.app, m.ID)
	}
	return nil
}

// localAnswer is c's answer from this node's share alone, while NATS is
// away: a member that leaves is not announced yet (see deferred).
func (n *Node) localAnswer(c *change) bool {
	if c.kind == leave && c.local {
		n.deferred.Add(c.app, c.channel, c.member.ID)
		return false
	}
	return c.local
}

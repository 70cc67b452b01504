package cluster

import (
	"context"
	"hash/fnv"
	"sort"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/webhook"
)

// The hub.State of a cluster: each answer comes from the store, plus what
// this node has not written yet, or from this node's own share while the
// store is away. A change of presence or users changes the own share, then
// the store's copy.

// presence is the cluster's hub.Presence. Its local part is this node's
// own members.
type presence struct {
	n     *Node
	local *hub.MemoryPresence
}

var _ hub.Presence = (*presence)(nil)

// Join implements hub.Presence. The channel's limit applies to this node's
// members first, then to the cluster's.
func (p *presence) Join(ctx context.Context, app, channel string, m hub.Member, max int) (bool, error) {
	c := &Change{Kind: Join, App: app, Channel: channel, Member: m, Max: max}
	first, err := p.n.apply(ctx, c)
	c.Greet(p.n.cfg.Deliver)
	return first, err
}

// Leave implements hub.Presence.
func (p *presence) Leave(ctx context.Context, app, channel, user string) (bool, error) {
	return p.n.apply(ctx, &Change{Kind: Leave, App: app, Channel: channel, Member: hub.Member{ID: user}})
}

// Members implements hub.Presence, sorted by id.
func (p *presence) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	out, err := read(p.n, ctx, func() ([]hub.Member, error) { return p.n.store.Members(ctx, app, channel) })
	if Unreachable(err) {
		return p.local.Members(ctx, app, channel)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// users is the cluster's hub.Users. Its local part is this node's own
// signed-in users.
type users struct {
	n     *Node
	local *hub.MemoryUsers
}

var _ hub.Users = (*users)(nil)

// SignIn implements hub.Users.
func (u *users) SignIn(ctx context.Context, app, user string) (bool, error) {
	return u.n.apply(ctx, &Change{Kind: SignIn, App: app, Member: hub.Member{ID: user}})
}

// SignOut implements hub.Users.
func (u *users) SignOut(ctx context.Context, app, user string) (bool, error) {
	return u.n.apply(ctx, &Change{Kind: SignOut, App: app, Member: hub.Member{ID: user}})
}

// Online implements hub.Users.
func (u *users) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := read(u.n, ctx, func() ([]string, error) { return u.n.store.Online(ctx, app, ids) })
	if Unreachable(err) {
		return u.local.Online(ctx, app, ids)
	}
	return out, err
}

// cache is the cluster's hub.Cache. A node keeps no copy: while the store
// is away a subscriber gets a cache miss, and the writes wait in the
// outbox.
type cache struct{ n *Node }

var _ hub.Cache = cache{}

// Put implements hub.Cache: the write is queued behind the publish.
func (c cache) Put(m *hub.Message) { c.n.enqueue(Outbound{Msg: m, Cache: true}) }

// Get implements hub.Cache.
func (c cache) Get(ctx context.Context, app, channel string) (hub.Message, time.Duration, bool, error) {
	type got struct {
		m   hub.Message
		ttl time.Duration
		ok  bool
	}
	g, err := read(c.n, ctx, func() (g got, err error) {
		g.m, g.ttl, g.ok, err = c.n.store.Cached(ctx, app, channel)
		return g, err
	})
	if err != nil {
		return hub.Message{}, 0, false, ignoreDown(err)
	}
	return g.m, g.ttl, g.ok, nil
}

// read asks the store, unless it is known to be unreachable (ErrDown); a
// call that fails otherwise has the link checked.
func read[T any](n *Node, ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if !n.link.Healthy.Load() {
		return zero, ErrDown
	}
	v, err := f()
	if err != nil && !Unreachable(err) {
		n.link.Suspect()
	}
	return v, err
}

// ignoreDown is err, or nil when it says the store is unreachable.
func ignoreDown(err error) error {
	if Unreachable(err) {
		return nil
	}
	return err
}

// apply makes c and reports whether the user's total across the cluster
// left zero (join, sign-in) or reached it (leave, sign-out). Two changes of
// one key leave the node in the order they were made (the key's stripe).
func (n *Node) apply(ctx context.Context, c *Change) (bool, error) {
	n.changes.RLock()
	defer n.changes.RUnlock()
	stripe := &n.stripes[c.stripe()%uint32(len(n.stripes))]
	stripe.Lock()
	defer stripe.Unlock()
	if err := c.ApplyLocal(n.presence.local, n.users.local); err != nil {
		return false, err
	}
	if !n.link.Healthy.Load() {
		n.link.Dirty.Store(true)
		return c.LocalAnswer(&n.deferred), nil
	}
	before, after, full, err := n.store.Change(ctx, c)
	switch {
	case err != nil:
		return n.failed(c, err)
	case full:
		c.Undo()
		return false, hub.ErrChannelFull
	}
	first := c.Answer(before, after, n.settled(n.Period()), &n.deferred)
	switch {
	case c.Held:
		n.holdDeparture(ctx, webhook.OpHold, c.App, c.Channel, c.Member.ID)
	case c.Unhold:
		n.holdDeparture(ctx, webhook.OpCancel, c.App, c.Channel, c.Member.ID)
	}
	return first, nil
}

func (c *Change) stripe() uint32 {
	h := fnv.New32a()
	h.Write([]byte(c.App + "\x00" + c.Channel + "\x00" + c.Member.ID))
	return h.Sum32()
}

// failed answers a change the store did not carry out, or did not
// confirm: the node will write its shares again. If the store is
// unreachable the local answer stands; if it is only slow, a join or
// sign-in is taken back and fails, and a leave or sign-out of the user's
// last connection here is deferred as while the store is unreachable: the
// store may carry it out when it answers again, and the departure is
// announced once the store confirms it.
func (n *Node) failed(c *Change, err error) (bool, error) {
	n.link.Dirty.Store(true)
	if Unreachable(err) {
		return c.LocalAnswer(&n.deferred), nil
	}
	n.link.Suspect()
	if !c.Adds() {
		return c.LocalAnswer(&n.deferred), nil
	}
	c.Undo()
	return false, err
}

// resync writes this node's presence members and signed-in users again,
// exactly as they are, with every change held off meanwhile, holds the
// departures that made (holdOutage), and takes a new epoch; tickLoop
// writes the counts again. It runs on healthLoop.
func (n *Node) resync() error {
	ctx, cancel := context.WithTimeout(n.ctx, n.Period())
	defer cancel()
	n.counts.Dirty.Store(true)
	n.changes.Lock()
	defer n.changes.Unlock()
	n.link.Dirty.Store(false)
	own := n.own()
	if err := n.store.WriteShares(ctx, own); err != nil {
		n.link.Dirty.Store(true)
		return err
	}
	n.holdOutage(ctx)
	n.epoch.Add(1)
	n.reconcileSoon()
	n.log.Info("cluster state written again", "presence_channels", len(own.Presence), "node", n.id)
	return nil
}

// own is this node's share of presence and users.
func (n *Node) own() Own {
	o := Own{Presence: make(map[Key][]Share), Users: make(map[Key]int)}
	n.presence.local.Each(func(app, channel string, m hub.Member, conns int) {
		k := Key{App: app, Name: channel}
		o.Presence[k] = append(o.Presence[k], Share{Member: m, Conns: conns})
	})
	n.users.local.Each(func(app, user string, conns int) {
		o.Users[Key{App: app, Name: user}] = conns
	})
	return o
}

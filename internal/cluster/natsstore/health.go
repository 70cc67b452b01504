package natsstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/hub"
)

// probeEvery is how often a degraded node tries NATS again.
const probeEvery = 200 * time.Millisecond

// errNotConnected is why a node is degraded while nats.go has no connection.
var errNotConnected = errors.New("no connection to nats")

// reapLockTTL is how long a reaper's lock holds off the others; a reaper
// that dies leaves the lock to lapse.
const reapLockTTL = time.Minute

// The node's link to NATS follows the rules of package linkstate, as the
// Redis backend's does (docs/cluster.md). NATS counts as unreachable when
// the connection drops or the heartbeat goes unanswered for SlowReply.

// settled reports whether NATS has been reachable for d since the last
// outage this node saw (or since it started, if it saw none).
func (n *Node) settled(d time.Duration) bool { return n.link.Settled(d) }

// period is the heartbeat period.
func (n *Node) period() time.Duration { return n.cfg.NodeTTL / 3 }

// healthLoop beats while NATS answers and probes while it does not, and
// removes old delete markers now and then.
func (n *Node) healthLoop() {
	beat := time.NewTicker(n.period())
	defer beat.Stop()
	probe := time.NewTicker(probeEvery)
	defer probe.Stop()
	purge := time.NewTicker(purgeEvery)
	defer purge.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-purge.C:
			n.purgeTombstones()
			continue
		case <-beat.C:
		case <-n.link.Suspects():
		case <-probe.C:
			if n.link.Healthy.Load() {
				continue
			}
		}
		n.heartbeat()
	}
}

// down records that NATS is unreachable.
func (n *Node) down(err error) {
	n.guesses.forget()
	n.counts.Dirty.Store(true)
	if n.link.Down() {
		n.log.Warn("nats unreachable: serving local connections only", "err", err)
	}
}

// up records that NATS answers again.
func (n *Node) up() {
	if n.link.Up() {
		n.log.Info("nats reachable: serving as a cluster node", "node", n.node, "prefix", n.cfg.Prefix)
	}
}

// heartbeat opens the buckets if need be and refreshes this node's
// heartbeat. When the heartbeat was missing (NATS lost it, or the node was
// taken for dead) or the buckets may lack some of the node's changes, the
// node writes its shares again and takes a new epoch, which tells the
// others to check what their clients were told. Then it looks at the
// other nodes.
func (n *Node) heartbeat() {
	if !n.nc.IsConnected() {
		n.down(errNotConnected) // no request could be answered: do not wait for one
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.SlowReply)
	defer cancel()
	b, missing, err := n.beat(ctx)
	if err != nil {
		n.kv.Store(nil) // JetStream may have restarted without them
		n.down(err)
		return
	}
	n.up()
	if missing || n.link.Dirty.Load() {
		if err := n.resync(); err != nil {
			n.log.Warn("cluster state not written again", "err", err)
			return
		}
		if _, _, err := n.beat(ctx); err != nil {
			n.down(err)
			return
		}
	}
	n.lookAround(ctx, b)
}

// beat sets this node's heartbeat (its epoch) and lists the node among
// those that ever beat; missing reports that the heartbeat was not there.
func (n *Node) beat(ctx context.Context) (b *buckets, missing bool, err error) {
	if b = n.kv.Load(); b == nil {
		if b, err = n.openBuckets(ctx); err != nil {
			return nil, false, err
		}
		n.kv.Store(b)
	}
	_, err = b.alive.Get(ctx, n.node)
	missing = errors.Is(err, jetstream.ErrKeyNotFound)
	if err != nil && !missing {
		return nil, false, err
	}
	if _, err = b.alive.PutString(ctx, n.node, strconv.FormatUint(n.epoch.Load(), 10)); err != nil {
		return nil, false, err
	}
	_, err = b.nodes.PutString(ctx, "node."+n.node, "")
	return b, missing, err
}

// lookAround reaps the nodes whose heartbeat has lapsed, once this node has
// been connected long enough to tell, and has the node's clients checked
// when another node has written its shares again.
func (n *Node) lookAround(ctx context.Context, b *buckets) {
	alive := make(map[string]string)
	if scanRaw(ctx, b.alive, ">", func(k string, v []byte) { alive[k] = string(v) }) != nil {
		return
	}
	var known []string
	if scanRaw(ctx, b.nodes, "node.*", func(k string, _ []byte) { known = append(known, strings.TrimPrefix(k, "node.")) }) != nil {
		return
	}
	for _, id := range known {
		if _, ok := alive[id]; !ok && id != n.node && n.settled(n.cfg.NodeTTL) {
			n.reapIfDead(b, id)
		}
	}
	if n.link.Epochs(alive, n.node) {
		n.reconcileSoon()
	}
}

// reapIfDead removes a dead node's shares, if this node is the first to
// take the reaping lock, announcing the members and users that vanish
// with it.
func (n *Node) reapIfDead(b *buckets, id string) {
	ctx, cancel := context.WithTimeout(n.ctx, n.period())
	defer cancel()
	lock := "reap." + id
	if !n.lock(ctx, b.nodes, lock) {
		return
	}
	if _, err := b.alive.Get(ctx, id); !errors.Is(err, jetstream.ErrKeyNotFound) {
		b.nodes.Delete(ctx, lock)
		return
	}
	n.log.Warn("node stopped heartbeating; removing its members", "node", id)
	if err := n.reap(ctx, b, id); err != nil {
		n.log.Warn("dead node not fully removed; the lock lapses and a node tries again", "node", id, "err", err)
		return
	}
	b.nodes.Delete(ctx, "node."+id)
	b.nodes.Delete(ctx, lock)
}

// lock takes key in kv for reapLockTTL: it creates the key, or replaces a
// lapsed one (compare-and-set, so one node wins).
func (n *Node) lock(ctx context.Context, kv jetstream.KeyValue, key string) bool {
	now := []byte(strconv.FormatInt(time.Now().UnixNano(), 10))
	_, err := kv.Create(ctx, key, now)
	if err == nil {
		return true
	}
	e, err := kv.Get(ctx, key)
	if err != nil || time.Since(e.Created()) < reapLockTTL {
		return false
	}
	_, err = kv.Update(ctx, key, now, e.Revision())
	return err == nil
}

// reap removes node's shares from counts, presence and users, counts
// first: a client told member_removed then finds the counts without the
// dead node's subscriptions.
func (n *Node) reap(ctx context.Context, b *buckets, node string) error {
	vacated, err := setShares(ctx, b.counts, node, nil)
	for _, v := range vacated {
		if app, channel, ok := splitKey(v.key); ok {
			n.cfg.Observer.ChannelVacated(app, channel)
		}
	}
	if err != nil {
		return err
	}
	gone, err := setShares(ctx, b.presence, node, nil)
	for _, g := range gone {
		if app, channel, ok := splitKey(g.key); ok {
			n.Publish(hub.MemberRemoved(app, channel, g.field))
			n.cfg.Observer.MemberRemoved(app, channel, g.field)
		}
	}
	if err != nil {
		return err
	}
	offline, err := setShares(ctx, b.users, node, nil)
	for _, o := range offline {
		if app, user, ok := splitKey(o.key); ok {
			n.Publish(hub.Watchlist(app, user, false))
		}
	}
	return err
}

// key joins two names into a key of two tokens.
func key(a, b string) string { return token(a) + "." + token(b) }

// splitKey reverses key.
func splitKey(k string) (a, b string, ok bool) {
	ta, tb, found := strings.Cut(k, ".")
	a, ok1 := untoken(ta)
	b, ok2 := untoken(tb)
	return a, b, found && ok1 && ok2
}

// scanRaw calls f with every live key of kv matching filter and its value.
func scanRaw(ctx context.Context, kv jetstream.KeyValue, filter string, f func(key string, value []byte)) error {
	w, err := kv.Watch(ctx, filter, jetstream.IgnoreDeletes())
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("nats: watcher closed")
			}
			if e == nil {
				return nil
			}
			f(e.Key(), e.Value())
		}
	}
}
